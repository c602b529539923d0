/* boxfab._core: placeholder for the particle-mesh methods of the particle
 * containers (deposit, interpolate, ...), which the `backend` branch defines
 * in its own file with the same symbol and removes this one. */
#include "bfpy_pc.h"

PyMethodDef bfpy_pc_mesh_methods[] = {
    {NULL, NULL, 0, NULL},
};

"""redistribute(lev_min > 0) and a particle that left a non-periodic domain (review of issue 21).

AMReX's locateParticle removes a particle outside the domain only when the level range starts at
level 0; for lev_min > 0 (a subcycled finer level redistributing alone) it aborts, "invalid particle".
boxfab removed the particle without a word (the level's count went down by one, total 400 -> 399).
Now ValueError naming the particle, nothing moved (every tile's data compared, in order), on the host
path and on the device-plan path; redistribute() from level 0 still removes it."""
import os
import subprocess
import sys
import textwrap

CODE = """
import numpy as np, boxfab.space2d as amr
amr.initialize([])
dom0 = amr.Box(amr.IntVect(0, 0), amr.IntVect(15, 15)); dom1 = amr.Box(amr.IntVect(0, 0), amr.IntVect(31, 31))
gm0 = amr.Geometry(dom0, amr.RealBox([0.0, 0.0], [1.0, 1.0]), 0, [0, 0])
gm1 = amr.Geometry(dom1, amr.RealBox([0.0, 0.0], [1.0, 1.0]), 0, [0, 0])
ba0 = amr.BoxArray(dom0); ba0.max_size(8)
ba1 = amr.BoxArray(amr.Box(amr.IntVect(16, 16), amr.IntVect(31, 31))); ba1.max_size(8)

def tiles(pc):
    out = []
    for lev in range(pc.finest_level + 1):
        for pti in pc.const_iterator(pc, level=lev):
            s = pti.soa().to_numpy(copy=True)
            out.append((lev, pti.index, s.idcpu.tobytes(), tuple(v.tobytes() for v in s.real.values())))
    return out

for cls in (amr.ParticleContainer_pureSoA_2_0_pinned, amr.ParticleContainer_pureSoA_2_0_default):
    pc = cls([gm0, gm1], [amr.DistributionMapping(ba0), amr.DistributionMapping(ba1)], [ba0, ba1], [2])
    pc.init_random(400, 4, amr.ParticleInitType_pureSoA_2_0(), False, amr.RealBox([0.0, 0.0], [1.0, 1.0]))
    n1 = pc.number_of_particles_at_level(1)
    assert n1 > 0
    for pti in pc.iterator(pc, level=1):
        pti.soa().to_numpy().real["x"][0] = 1.25            # out through the non-periodic high side
        break
    before = tiles(pc)
    try:
        pc.redistribute(1, 1)
    except ValueError as e:
        assert "left the domain" in str(e) and "level 1" in str(e), e
    else:
        raise AssertionError(f"accepted: level 1 has {pc.number_of_particles_at_level(1)} of {n1}")
    assert tiles(pc) == before, "changed"
    pc.redistribute()                                      # from level 0: removed, as AMReX does
    assert pc.OK() and pc.total_number_of_particles() == 399 and pc.number_of_particles_at_level(1) == n1 - 1
print("OK")
"""


def test_redistribute_from_a_finer_level_refuses_a_particle_that_left_the_domain():
    env = dict(os.environ, BOXFAB_PARTICLE_PLAN="1")   # the _pinned container takes the device-resident path
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(CODE)], capture_output=True, text=True, timeout=120,
                       env=env)
    assert r.returncode == 0 and "OK" in r.stdout, r.stdout + r.stderr

validate --e2e --traces tests/data/r15/e2e_probe_fast

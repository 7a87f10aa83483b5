validate --e2e --traces tests/data/r15/e2e_all_skipped

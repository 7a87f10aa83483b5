validate --e2e --traces tests/data/e2e_positions --breakdown none

validate --e2e --traces tests/data/e2e_bad/event_order

validate --collectives --traces tests/data/collectives-small

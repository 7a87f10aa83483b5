validate --e2e --traces traces/e2e

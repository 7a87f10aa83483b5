trace import --chrome tests/data/trace/huge_dur.json

trace import --chrome tests/data/trace/dup_key_chrome.json

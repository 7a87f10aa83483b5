validate --model-dir tests/data/r8_model_unknown

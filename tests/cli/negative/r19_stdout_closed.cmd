gpus >&-

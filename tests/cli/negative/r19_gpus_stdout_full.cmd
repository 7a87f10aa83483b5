gpus >/dev/full

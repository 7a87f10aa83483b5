trace fit-collectives -o /dev/full

trace import --chrome /dev/zero

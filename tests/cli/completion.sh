#!/usr/bin/env bash
# bash completion (scripts/loom-completion.bash): commands, a command's flags, and catalogue keys after --gpu.
set -u
loom=$1; src=$2; cd "$src" || exit 1
source scripts/loom-completion.bash
fail=0
check() {  # check "WORDS..." WANT: completing the last word must offer WANT
  local want=${!#}; local words=("${@:1:$#-1}")
  COMP_WORDS=("$loom" "${words[@]}"); COMP_CWORD=${#words[@]}; COMPREPLY=()
  _loom
  case " ${COMPREPLY[*]} " in
    *" $want "*) ;;
    *) echo "FAIL completion of '${words[*]}': want $want, got ${COMPREPLY[*]}"; fail=1;;
  esac
}
check "pre" predict
check predict "--gpu" h200 "h200"
check predict "--kern" --kernel
check e2e --phase "" decode
check trace import --from "pipe" pipeweave
check "sim" simulate
check simulate "--rep" --replicas
check simulate --router "least" least_outstanding
[ "$fail" = 0 ] && echo "completion: ok"
exit $fail

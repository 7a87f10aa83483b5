# bash completion for loom: `source scripts/loom-completion.bash` (or copy it to /etc/bash_completion.d/loom).
# Completes commands, each command's flags, GPU catalogue keys after --gpu/--gpus, model presets after --model and
# file names elsewhere.
_loom() {
  local cur prev cmd words
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  cmd=${COMP_WORDS[1]}
  local commands="gpus predict diagnose trace train validate e2e whatif simulate report tune calibrate --help --version"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "$commands" -- "$cur"))
    return
  fi
  local root
  root=$(dirname "$(dirname "$(readlink -f "$(command -v "${COMP_WORDS[0]}" 2>/dev/null || echo .)")")")
  case "$prev" in
    --gpu|--gpus)
      local keys
      keys=$(ls "${LOOM_HOME:-$root}"/gpus/*.yaml 2>/dev/null | xargs -n1 basename 2>/dev/null | sed 's/\.yaml$//')
      COMPREPLY=($(compgen -W "all $keys" -- "$cur")); return ;;
    --format) COMPREPLY=($(compgen -W "table json csv" -- "$cur")); return ;;
    --phase) COMPREPLY=($(compgen -W "prefill decode" -- "$cur")); return ;;
    --mode) COMPREPLY=($(compgen -W "eager graph megakernel" -- "$cur")); return ;;
    --profile) COMPREPLY=($(compgen -W "vllm sglang hf-eager hf-sdpa torch-static loom-cb" -- "$cur")); return ;;
    --kernel-model) COMPREPLY=($(compgen -W "learned analytical" -- "$cur")); return ;;
    --clock) COMPREPLY=($(compgen -W "boost sustained auto" -- "$cur")); return ;;
    --router) COMPREPLY=($(compgen -W "round_robin least_outstanding" -- "$cur")); return ;;
    --arrivals) COMPREPLY=($(compgen -W "poisson gamma:cv=" -- "$cur")); return ;;
    --from) COMPREPLY=($(compgen -W "neusight vidur pipeweave" -- "$cur")); return ;;
  esac
  local flags
  case "$cmd" in
    gpus) flags="show --format --set" ;;
    predict) flags="--gpu --set --kernel --batch --format --model --threads --clock --interval" ;;
    diagnose) flags="--gpu --set --kernel --format --measured-us --model" ;;
    trace) flags="import summary paths fit-collectives compact diff --lct --cases --out -o --chrome --format --from --gpu --split --dataset --lenient" ;;
    train) flags="--traces --out --seed --rounds --global --force" ;;
    validate) flags="--traces --model-dir --max-mape --format --out --check --leave-one-gpu-out --e2e --collectives" ;;
    e2e) flags="--gpu --set --model --phase --batch --seq --context --cache-len --tp --profile --mode --trace-out --kernel-model --clock --format --interval" ;;
    whatif) flags="--model --batch --input-len --output-len --gpus --tp --pp --set --profile --format --kernel-model --clock --interval --rate --requests --num-requests --arrivals --prompt-len --seed --slo --threads" ;;
    simulate) flags="--gpu --set --model --tp --pp --replicas --router --profile --format --trace-out --kernel-model --clock --series-points --requests --rate --num-requests --arrivals --prompt-len --output-len --seed --slo --per-request --quiet" ;;
    report) flags="-o --out --json-in --json-out --gpu --set --kernel --measured-us --validation --e2e --whatif --simulate --sample" ;;
    calibrate) flags="--gpu -o --out" ;;
    tune) flags="--gpu --family --kernel --traces --out --tables --format --plan --fit --validate --export --sample-fraction --extrapolate --reps --anchors-per-bucket --heldout-traces --heldout-only --no-timing --model --tp --dtype --export-moe-configs --lambda --partial-shapes --per-shape" ;;
  esac
  if [[ "$cur" == -* ]] || [ -z "$cur" ]; then
    COMPREPLY=($(compgen -W "$flags --help" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -F _loom loom

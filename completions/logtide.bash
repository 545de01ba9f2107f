# bash completion for logtide                                   -*- shell-script -*-
# Installed to share/bash-completion/completions/logtide.

_logtide() {
  local cur prev
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  local flags="--window --by --agg --time --time-format --delay --lateness --max-future --idle-timeout -f --follow --emit --late-output
    --on-error --max-bad-ratio --errors -o --output --format --stats --progress --explain -q --quiet --config
    --threads
    --state --checkpoint-every --checkpoint-interval --hold --durable --reread-replaced --overwrite --change-outputs --allow-missing-inputs -h --help --version"

  case $prev in
    --window)
      COMPREPLY=($(compgen -W "tumbling: sliding: session:" -- "$cur"))
      compopt -o nospace 2>/dev/null
      return ;;
    --agg)
      COMPREPLY=($(compgen -W "count count( sum( min( max( avg( count_distinct( first( last(" -- "$cur"))
      compopt -o nospace 2>/dev/null
      return ;;
    --emit) COMPREPLY=($(compgen -W "final update" -- "$cur")); return ;;
    --on-error) COMPREPLY=($(compgen -W "skip fail" -- "$cur")); return ;;
    --format) COMPREPLY=($(compgen -W "ndjson csv" -- "$cur")); return ;;
    --time-format)
      COMPREPLY=($(compgen -W "auto rfc3339 epoch_s epoch_ms epoch_us epoch_ns" -- "$cur"))
      return ;;
    --late-output|--errors|-o|--output|--config|--state|inspect)
      COMPREPLY=($(compgen -f -- "$cur"))
      return ;;
    --time|--by|--delay|--lateness|--max-future|--idle-timeout|--checkpoint-every|--checkpoint-interval|--threads)
      COMPREPLY=()
      return ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$flags" -- "$cur"))
  elif [ "$COMP_CWORD" = 1 ]; then
    COMPREPLY=($(compgen -W "inspect" -- "$cur") $(compgen -f -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -F _logtide logtide

# bash completion for logtide                                   -*- shell-script -*-
# Installed to share/bash-completion/completions/logtide. Needs bash 4.1 (compopt), not the
# bash-completion package.
#
# File names are left to readline's own completion (-o default), so they behave as for any
# command: directories get '/', names with spaces or quotes are escaped, ~ expands.

# Sets words, cword, cur and prev from COMP_WORDS, joining the pieces bash splits at ':' and '='
# (COMP_WORDBREAKS) back into one word: for `--window tumbling:1`, cur is `tumbling:1` and prev
# is `--window`; for `--explain=sql:d`, cur is all of it. COMP_LINE tells pieces that touch from
# words apart (`a: b` stays two words).
_logtide_words() {
  local line=${COMP_LINE-} i w rest lead pos=0
  words=()
  for ((i = 0; i <= COMP_CWORD && i < ${#COMP_WORDS[@]}; i++)); do
    w=${COMP_WORDS[i]}
    lead=
    if [ -n "$line" ]; then
      rest=${line:pos}
      lead=${rest%%[![:space:]]*}
      pos=$((pos + ${#lead} + ${#w}))
    fi
    if ((i > 0)) && [ -z "$lead" ] && [[ $w == [:=] || ${words[-1]} == *[:=] ]]; then
      words[-1]+=$w
    else
      words+=("$w")
    fi
  done
  cword=$((${#words[@]} - 1))
  cur=${words[cword]}
  prev=
  if ((cword > 0)); then prev=${words[cword - 1]}; fi
}

# Removes from each COMPREPLY entry the part of cur up to its last ':' or '=' that bash breaks
# words at, which bash does not replace (it only replaces the piece after it).
_logtide_ltrim_colon() {
  local breaks=
  [[ $COMP_WORDBREAKS == *:* ]] && breaks+=:
  [[ $COMP_WORDBREAKS == *=* ]] && breaks+==
  [ -n "$breaks" ] || return
  if [[ $cur == *[$breaks]* ]]; then
    local prefix=${cur%"${cur##*[$breaks]}"} i
    for i in "${!COMPREPLY[@]}"; do
      COMPREPLY[i]=${COMPREPLY[i]#"$prefix"}
    done
  fi
}

# Offers the words of $1 that start with cur, and nothing else (no file names).
_logtide_words_of() {
  compopt +o default 2>/dev/null
  local IFS=$' \t\n'
  COMPREPLY=($(compgen -W "$1" -- "$cur"))
}

# Offers cur followed by each duration unit when cur ends with a digit (`1` -> `1ms 1s 1m ...`).
_logtide_duration_units() {
  if [[ $cur == *[0-9] ]]; then
    _logtide_words_of "${cur}ms ${cur}s ${cur}m ${cur}h ${cur}d"
    compopt -o nospace 2>/dev/null
  else
    _logtide_words_of ""
  fi
}

# Falls back to readline's file name completion.
_logtide_files() {
  compopt -o default 2>/dev/null
  COMPREPLY=()
}

_logtide() {
  local cur prev cword
  local -a words
  _logtide_words

  # Kept in the order of `logtide --help`; the test checks every flag there is here.
  local flags="-h --help --version --config --input-format --time --time-format --window --tz --local-times --window-label --by --agg --where --having
    --delay
    --lateness --max-future --idle-timeout -f --follow --emit --early --early-every --changes --late-output --on-error
    --max-bad-ratio --errors --max-line-length -o --output --format --stats --progress --explain --threads --apply-threads -q --quiet
    --state --checkpoint-every --checkpoint-interval --hold --durable --reread-replaced --overwrite
    --change-outputs --allow-missing-inputs"

  # After `inspect`: its one state file.
  local i
  for ((i = 1; i < cword; i++)); do
    if [ "${words[i]}" = inspect ]; then
      if [[ $cur == -* ]]; then _logtide_words_of "-h --help"; else _logtide_files; fi
      return
    fi
  done

  # --explain takes its mode only after '=' (`--explain FILE` reads FILE).
  if [[ $cur == --explain=* ]]; then
    _logtide_words_of "--explain=words --explain=sql:duckdb --explain=sql:flink --explain=sql:clickhouse"
    _logtide_ltrim_colon
    return
  fi

  case $prev in
    --window)
      case $cur in
        *:*[0-9])        _logtide_duration_units ;;
        sliding:*:*)     _logtide_words_of "" ;;
        sliding:?*)      _logtide_words_of "$cur:" ;;  # the slide follows the size
        *:*)             _logtide_words_of "" ;;
        *)               _logtide_words_of "tumbling: sliding: session:" ;;
      esac
      _logtide_ltrim_colon
      compopt -o nospace 2>/dev/null
      return ;;
    --agg)
      _logtide_words_of "count count( sum( min( max( avg( count_distinct( first( last( quantile( median( p50( p90( p95( p99( p999( approx_count_distinct( top_k("
      compopt -o nospace 2>/dev/null
      return ;;
    --emit) _logtide_words_of "final update"; return ;;
    --tz) _logtide_words_of "local UTC"; return ;;
    --on-error) _logtide_words_of "skip fail"; return ;;
    --format) _logtide_words_of "ndjson csv table"; return ;;
    --input-format) _logtide_words_of "ndjson logfmt csv tsv"; return ;;
    --changes) _logtide_words_of "snapshot retract debezium"; return ;;
    --time-format)
      _logtide_words_of "auto rfc3339 epoch_s epoch_ms epoch_us epoch_ns"
      return ;;
    --late-output|--errors|-o|--output|--config|--state)
      _logtide_files
      return ;;
    --delay|--lateness|--max-future|--idle-timeout|--early|--early-every|--checkpoint-interval)
      _logtide_duration_units
      return ;;
    --time|--by|--where|--having|--max-bad-ratio|--max-line-length|--checkpoint-every|--threads|--apply-threads)
      _logtide_words_of ""
      return ;;
  esac
  if [[ $cur == -* ]]; then
    _logtide_words_of "$flags"
  elif [ "$cword" = 1 ] && [[ inspect == "$cur"* ]]; then
    # `inspect`, or an input file whose name starts like it.
    compopt -o filenames 2>/dev/null
    compopt +o default 2>/dev/null
    local IFS=$'\n'
    COMPREPLY=(inspect $(compgen -f -- "$cur"))
  else
    _logtide_files
  fi
}
complete -F _logtide logtide

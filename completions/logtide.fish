# fish completion for logtide. Installed to share/fish/vendor_completions.d/logtide.fish.

# Prints the token being completed followed by each duration unit when it ends with a digit
# (1 -> 1ms 1s 1m 1h 1d).
function __logtide_duration
    set -l tok (commandline -ct)
    string match -qr '[0-9]$' -- $tok; or return
    printf '%s\t%s\n' $tok"ms" milliseconds $tok"s" seconds $tok"m" minutes $tok"h" hours $tok"d" days
end

# --window: a kind, then its size, gap or slide.
function __logtide_window
    set -l tok (commandline -ct)
    switch $tok
        case 'sliding:*:*' 'tumbling:*' 'session:*'
            __logtide_duration
        case 'sliding:*'
            if string match -qr '[0-9]$' -- $tok
                __logtide_duration
            else if string match -qr '[0-9][a-z]$' -- $tok
                printf '%s\t%s\n' $tok: 'then the slide'
            end
        case '*'
            printf '%s\t%s\n' tumbling: 'tumbling:SIZE, fixed windows' \
                sliding: 'sliding:SIZE:SLIDE, overlapping windows' \
                session: 'session:GAP, activity separated by gaps'
    end
end

function __logtide_aggs
    printf '%s\t%s\n' count events 'count(' 'events with the field present' \
        'sum(' 'sum of a number field' 'min(' 'smallest value' 'max(' 'largest value' \
        'avg(' 'mean of a number field' 'count_distinct(' 'distinct values' \
        'first(' 'value of the earliest event' 'last(' 'value of the latest event' \
        'quantile(' 'quantile of a number field, within 1%' \
        'median(' 'median of a number field, within 1%' 'p50(' 'median, within 1%' \
        'p90(' '90th percentile, within 1%' 'p95(' '95th percentile, within 1%' \
        'p99(' '99th percentile, within 1%' 'p999(' '99.9th percentile, within 1%' \
        'approx_count_distinct(' 'distinct values, estimated' 'top_k(' 'most frequent values'
end

set -l main 'not __fish_seen_subcommand_from inspect'
# In the order of `logtide --help`; the tests check every flag there is here.
complete -c logtide -s h -l help -d 'Print help and exit'
complete -c logtide -n $main -l version -d 'Print the version and exit'
complete -c logtide -n $main -l config -r -F -d 'Read options from a TOML file'
complete -c logtide -n $main -l time -x -d 'Event-time field, a dotted path (default ts)'
complete -c logtide -n $main -l input-format -x -a 'ndjson logfmt csv tsv' -d 'What the input lines are'
complete -c logtide -n $main -l time-format -x -a 'auto rfc3339 epoch_s epoch_ms epoch_us epoch_ns' -d 'How event times are written (or a strptime pattern)'
complete -c logtide -n $main -l window -x -a '(__logtide_window)' -d 'tumbling:SIZE, sliding:SIZE:SLIDE or session:GAP'
complete -c logtide -n $main -l tz -x -a 'local UTC' -d 'Time zone of the windows: an IANA name or local'
complete -c logtide -n $main -l local-times -d 'With --tz: window bounds in local time with offset'
complete -c logtide -n $main -l window-label -d 'Add window_label: local date, ISO week, month or start of each window'
complete -c logtide -n $main -l by -x -d 'Group key: dotted paths or NAME=EXPR, several separated by commas'
complete -c logtide -n $main -l agg -x -a '(__logtide_aggs)' -d 'Aggregates, several separated by commas (default count)'
complete -c logtide -n $main -l where -x -d 'Only events for which EXPR is true'
complete -c logtide -n $main -l having -x -d 'Only result records for which EXPR is true'
complete -c logtide -n $main -l delay -x -a '(__logtide_duration)' -d 'Out-of-orderness bound: watermark = latest event time - DUR'
complete -c logtide -n $main -l lateness -x -a '(__logtide_duration)' -d "Allowed lateness after a window's end"
complete -c logtide -n $main -l max-future -x -a '(__logtide_duration)' -d 'An event more than DUR ahead of the watermark is a bad line'
complete -c logtide -n $main -l idle-timeout -x -a '(__logtide_duration)' -d 'An input idle for DUR stops holding the watermark back'
complete -c logtide -n $main -s f -l follow -d 'Keep reading files as they grow, across rotations'
complete -c logtide -n $main -l emit -x -a "final\t'one record per window and key' update\t'revisions'" -d 'When to write results'
complete -c logtide -n $main -l early -x -a '(__logtide_duration)' -d 'Provisional records while a window is open, every DUR of event time'
complete -c logtide -n $main -l early-every -x -a '(__logtide_duration)' -d 'Live input: provisional records while a window is open, every DUR of wall-clock time'
complete -c logtide -n $main -l changes -x -a "snapshot\t'the whole record' retract\t'op - then op +' debezium\t'op c/u/d with before and after'" -d 'How revisions are written'
complete -c logtide -n $main -l late-output -r -F -d 'Write events dropped as late to FILE as NDJSON'
complete -c logtide -n $main -l on-error -x -a "skip\t'count and report' fail\t'stop, exit 3'" -d 'What a bad line does'
complete -c logtide -n $main -l max-bad-ratio -x -d 'Fail when more than this share of lines are bad, 0 to 1'
complete -c logtide -n $main -l errors -r -F -d 'Write bad lines to FILE as NDJSON'
complete -c logtide -n $main -l max-line-length -x -a '64K 1M 16M 64M 1G' -d 'A longer line is a bad line, dropped as it is read (default 16M)'
complete -c logtide -n $main -s o -l output -r -F -d 'Write results to FILE instead of standard output'
complete -c logtide -n $main -l format -x -a 'ndjson csv table' -d 'Output format'
complete -c logtide -n $main -l stats -d 'Print a JSON summary on standard error at exit'
complete -c logtide -n $main -l progress -d 'Show progress on standard error even when not a terminal'
# The mode only after '=' (--explain=sql:duckdb): `--explain FILE` reads FILE.
complete -c logtide -n $main -l explain -f -a "words\t'in words' sql:duckdb\t'a DuckDB query' sql:flink\t'a Flink SQL job' sql:clickhouse\t'a ClickHouse cluster script'" -d 'Print how the query will run and exit'
complete -c logtide -n $main -l threads -x -d 'Threads that read and parse input, 1 to 256'
complete -c logtide -n $main -l apply-threads -x -d 'Threads that apply events by key group, 1 to 256'
complete -c logtide -n $main -s q -l quiet -d 'Print no warnings (errors are still printed)'
complete -c logtide -n $main -l state -r -F -d "Keep the job's state in this SQLite file"
complete -c logtide -n $main -l checkpoint-every -x -d 'With --state: checkpoint every N lines'
complete -c logtide -n $main -l checkpoint-interval -x -a '(__logtide_duration)' -d 'With --state: checkpoint at least this often'
complete -c logtide -n $main -l hold -d 'With --state: keep open windows for the next run'
complete -c logtide -n $main -l durable -d 'With --state: fsync outputs and the state at each checkpoint'
complete -c logtide -n $main -l reread-replaced -d 'With --state: read a truncated or replaced input from its start'
complete -c logtide -n $main -l overwrite -d 'With --state: let a new job replace output files that hold data'
complete -c logtide -n $main -l change-outputs -d "With --state: on resume, take the outputs given as the job's"
complete -c logtide -n $main -l allow-missing-inputs -d 'With --state: on resume, let a file the job was reading be left off'
# The first word may be the subcommand; other words are input files (fish's default).
complete -c logtide -n '__fish_use_subcommand' -a inspect -d 'Print what a --state file holds, as JSON'

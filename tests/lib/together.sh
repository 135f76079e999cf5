# Run independent test commands a few at a time (source it). Most of the suite's harnesses wait:
# on a server, on the conformance suite's scenario sleeps, on a client's round trips; on the
# 2-core machine the suite must fit in, running three at once takes about half the time of
# running them in turn (README, "Time on this 2-core machine").
#
#   together NAME command args...     queue a command
#   together_run CALLBACK             run the queue, at most $FERRITE_TEST_JOBS (default 3) at
#                                     once, each with stdout and stderr to a file of its own; then
#                                     call `CALLBACK NAME STATUS SECONDS LOGFILE` for each, in the
#                                     order they were queued, and empty the queue
#
# FERRITE_TEST_JOBS=1 runs them one after another (the order and the output stay the same).
# Commands run in subshells: they cannot change the caller's variables (the callback can).
together_names=()
together_cmds=()

together() {
    local name=$1
    shift
    together_names+=("$name")
    together_cmds+=("$(printf '%q ' "$@")")
}

together_run() {
    local callback=$1 jobs=${FERRITE_TEST_JOBS:-3} dir i n pid
    [[ $jobs =~ ^[1-9][0-9]*$ ]] || jobs=3
    dir=$(mktemp -d)
    n=${#together_cmds[@]}
    local -a pids=()
    for ((i = 0; i < n; i++)); do
        # Wait for a free slot: count this queue's commands still running.
        while :; do
            local live=0
            for pid in "${pids[@]}"; do
                kill -0 "$pid" 2>/dev/null && live=$((live + 1))
            done
            ((live < jobs)) && break
            sleep 0.2
        done
        (
            start=$SECONDS
            eval "${together_cmds[i]}" >"$dir/$i.log" 2>&1 </dev/null
            echo "$? $((SECONDS - start))" >"$dir/$i.status"
        ) &
        pids+=($!)
    done
    for pid in "${pids[@]}"; do
        wait "$pid"
    done
    local status secs
    for ((i = 0; i < n; i++)); do
        read -r status secs <"$dir/$i.status" || { status=1 secs=0; }
        "$callback" "${together_names[i]}" "$status" "$secs" "$dir/$i.log"
    done
    rm -rf "$dir"
    together_names=()
    together_cmds=()
}

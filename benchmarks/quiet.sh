# Sourced by the benchmark scripts (compare_cpu.sh, bench_vs_pytorch.sh):
# waiting for a shared machine to go quiet before a measurement.
#
#   source benchmarks/quiet.sh
#   QUIET_WAIT=300 wait_for_quiet

CLK_TCK="$(getconf CLK_TCK)"
# Busy CPU time of the whole machine so far, in clock ticks (/proc/stat).
busy_ticks() {
  local _cpu user nice system idle iowait irq softirq steal _rest
  read -r _cpu user nice system idle iowait irq softirq steal _rest < /proc/stat
  echo $((user + nice + system + irq + softirq + steal))
}

# Waits (at most QUIET_WAIT seconds, default 300) until other processes use
# less than 0.2 of a CPU over 2 s, so a run does not start inside someone
# else's build.
wait_for_quiet() {
  local limit="${QUIET_WAIT:-300}" waited=0 before after
  while ((waited < limit)); do
    before="$(busy_ticks)"
    sleep 2
    after="$(busy_ticks)"
    # < 0.2 CPUs: (after - before) / CLK_TCK / 2 s < 0.2
    if (((after - before) * 10 < 4 * CLK_TCK)); then return 0; fi
    ((waited == 0)) && echo "   (other processes are busy; waiting up to ${limit} s for quiet)"
    waited=$((waited + 2))
  done
  echo "   (still busy after ${limit} s; running anyway)"
}

#!/usr/bin/env bash
# A one-node Slurm cluster on localhost for the tests of `impactcv campaign --engine
# slurm` (docs/campaign.md): munged, slurmctld and slurmd started directly (no
# systemd), each with its own config, key, state folders and logs under one folder
# ($ICV_SLURM_DIR, default /tmp/impactcv-slurm). No cgroup: proctrack/linuxproc and
# task/none. The node has this machine's CPUs and memory (slurmd -C).
#
#   scripts/slurm-local.sh start    # idempotent; prints SLURM_CONF=... (eval it)
#   scripts/slurm-local.sh status   # exit 0 when the node takes jobs
#   scripts/slurm-local.sh stop     # stops the daemons it started
#
# Needs slurmctld, slurmd, slurm-client and munge (scripts/deps.sh --slurm), and root
# (slurmd runs jobs as their user). Prints one line saying why when it cannot start.
set -euo pipefail

dir=${ICV_SLURM_DIR:-/tmp/impactcv-slurm}
conf=$dir/slurm.conf
ctld_port=${ICV_SLURM_PORT:-16817}
export SLURM_CONF=$conf

fail() { echo "slurm-local.sh: $*" >&2; exit 1; }

alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

node_up() {
  alive "$dir/run/slurmctld.pid" && alive "$dir/run/slurmd.pid" &&
    sinfo -h -o '%t' 2>/dev/null | grep -Eq '^(idle|mix|alloc)'
}

write_conf() {
  local host cpus mem
  host=$(hostname -s)
  cpus=$(slurmd -C | sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' | head -1)
  mem=$(slurmd -C | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' | head -1)
  [ -n "$cpus" ] && [ -n "$mem" ] || fail "slurmd -C did not say this machine's CPUs and memory"
  cat >"$conf" <<EOF
# written by scripts/slurm-local.sh: a one-node cluster on $host
ClusterName=impactcv
SlurmctldHost=$host
SlurmctldPort=$ctld_port
SlurmdPort=$((ctld_port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/run/munge.socket
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MinJobAge=600
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmdSpoolDir=$dir/spool
StateSaveLocation=$dir/state
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
}

start() {
  for c in munged slurmctld slurmd sinfo sbatch; do
    command -v $c >/dev/null 2>&1 || fail "$c not found (scripts/deps.sh --slurm installs slurm-wlm and munge)"
  done
  [ "$(id -u)" -eq 0 ] || fail "needs root (slurmd runs each job as its user)"
  if node_up; then
    echo "SLURM_CONF=$conf"
    return 0
  fi
  stop >/dev/null 2>&1 || true
  mkdir -p "$dir/run" "$dir/spool" "$dir/state" "$dir/log" "$dir/munge"
  chmod 700 "$dir/munge"
  if [ ! -s "$dir/munge/munge.key" ]; then
    dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none || fail "cannot write a munge key"
  fi
  chmod 400 "$dir/munge/munge.key"
  write_conf
  munged --force --key-file="$dir/munge/munge.key" --socket="$dir/run/munge.socket" \
    --pid-file="$dir/run/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed" ||
    fail "munged did not start ($dir/log/munged.log)"
  slurmctld -f "$conf" || fail "slurmctld did not start ($dir/log/slurmctld.log)"
  slurmd -f "$conf" || fail "slurmd did not start ($dir/log/slurmd.log)"
  for _ in $(seq 1 60); do
    if node_up; then
      echo "SLURM_CONF=$conf"
      return 0
    fi
    sleep 0.5
  done
  fail "the node did not come up in 30 s (logs in $dir/log/)"
}

stop() {
  for d in slurmd slurmctld munged; do
    local pf=$dir/run/$d.pid
    if alive "$pf"; then
      local pid
      pid=$(cat "$pf")
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    fi
    rm -f "$pf"
  done
}

case "${1:-}" in
start) start ;;
stop) stop ;;
status)
  if node_up; then
    echo "SLURM_CONF=$conf"
    sinfo -h -o '%P %D %t %c CPUs'
  else
    echo "slurm-local.sh: not running" >&2
    exit 1
  fi
  ;;
*) fail "usage: scripts/slurm-local.sh start|stop|status" ;;
esac

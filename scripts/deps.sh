#!/usr/bin/env bash
# Installs the Debian packages impactcv needs, and only those that are missing.
# Libraries are checked with pkg-config; tools by their command. Quiet when all is
# present; otherwise runs `apt-get update` once and prints what it installed.
# `scripts/deps.sh --slurm` also installs Slurm (slurm-wlm's daemons and client) and munge.
set -euo pipefail

# pkg-config module -> Debian package
libs=(
  "libavformat:libavformat-dev"
  "libavcodec:libavcodec-dev"
  "libswscale:libswscale-dev"
  "libavutil:libavutil-dev"
  "opencv4:libopencv-dev"
  "gsl:libgsl-dev"
  "yaml-0.1:libyaml-dev"
  "libxml-2.0:libxml2-dev"
  "libzip:libzip-dev"
  "jansson:libjansson-dev"
  "plplot:libplplot-dev"
  "libcrypto:libssl-dev"
)
# command -> Debian package
tools=(
  "pkg-config:pkgconf"
  "cc:gcc"
  "c++:g++"
  "ffmpeg:ffmpeg"
  "clang:clang"
  "jq:jq"
  "unzip:unzip"
)

# file (a glob) -> Debian package. make fuzz links clang's -fsanitize=fuzzer,address,
# undefined: Debian ships that libFuzzer (libclang_rt.fuzzer) and the sanitizers'
# runtimes in libclang-rt-dev, which clang only recommends.
files=(
  "/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a:libclang-rt-dev"
)

# --slurm: also Slurm and munge for the slurm engine's tests against a one-node cluster
# (scripts/slurm-local.sh; .ci/run asks for them, a plain build does not need them)
if [ "${1:-}" = "--slurm" ]; then
  tools+=(
    "munged:munge"
    "slurmctld:slurmctld"
    "slurmd:slurmd"
    "sbatch:slurm-client"
  )
fi

# command -> Debian package, installed with its recommended packages (fonts and the
# like: the report is tested in a real browser)
tools_full=(
  "chromium:chromium"
)

missing=()
missing_full=()
for t in "${tools_full[@]}"; do
  command -v "${t%%:*}" >/dev/null 2>&1 || missing_full+=("${t#*:}")
done
for t in "${tools[@]}"; do
  command -v "${t%%:*}" >/dev/null 2>&1 || missing+=("${t#*:}")
done
for f in "${files[@]}"; do
  compgen -G "${f%%:*}" >/dev/null || missing+=("${f##*:}")
done
for l in "${libs[@]}"; do
  if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists "${l%%:*}" 2>/dev/null; then
    missing+=("${l#*:}")
  fi
done
[ ${#missing[@]} -eq 0 ] && [ ${#missing_full[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  sudo=sudo
  command -v sudo >/dev/null 2>&1 || { echo "deps.sh: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
else
  sudo=
fi
echo "deps.sh: installing ${missing[*]} ${missing_full[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
if [ ${#missing[@]} -gt 0 ]; then
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ ${#missing_full[@]} -gt 0 ]; then
  $sudo apt-get install -y -qq "${missing_full[@]}" >/dev/null
fi
echo "deps.sh: installed ${missing[*]} ${missing_full[*]}"

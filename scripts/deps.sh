#!/usr/bin/env bash
# Installs the Debian packages impactcv needs, and only those that are missing.
# Libraries are checked with pkg-config; tools by their command. Quiet when all is
# present; otherwise runs `apt-get update` once and prints what it installed.
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
  "jansson:libjansson-dev"
  "plplot:libplplot-dev"
)
# command -> Debian package
tools=(
  "pkg-config:pkgconf"
  "cc:gcc"
  "c++:g++"
  "ffmpeg:ffmpeg"
)

missing=()
for t in "${tools[@]}"; do
  command -v "${t%%:*}" >/dev/null 2>&1 || missing+=("${t#*:}")
done
for l in "${libs[@]}"; do
  if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists "${l%%:*}" 2>/dev/null; then
    missing+=("${l#*:}")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  sudo=sudo
  command -v sudo >/dev/null 2>&1 || { echo "deps.sh: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
else
  sudo=
fi
echo "deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "deps.sh: installed ${missing[*]}"

#!/usr/bin/env bash
# Redis for the tests and demos of the shared stores (issue 14): `redis-server` from Debian's
# packages, installed when missing (the tests start their own throwaway servers on free ports,
# with no persistence; nothing here starts the system service).
#   scripts/redis.sh install      install redis-server if it is not on PATH
#   scripts/redis.sh start PORT   install if needed, then run a throwaway server on PORT in the
#                                 foreground (for a demo fleet: --redis redis://127.0.0.1:PORT)
set -euo pipefail
install() {
  command -v redis-server >/dev/null 2>&1 && return 0
  echo "installing redis-server (Debian package)" >&2
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q redis-server >/dev/null 2>&1 || {
    $sudo apt-get update -q >/dev/null 2>&1
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q redis-server >/dev/null
  }
  command -v redis-server >/dev/null
}
case "${1:-install}" in
  install) install ;;
  start)
    install
    exec redis-server --port "${2:?a port}" --save "" --appendonly no --bind 127.0.0.1
    ;;
  *) echo "usage: $0 install | start PORT" >&2; exit 2 ;;
esac

# shellcheck shell=bash
# ensure_mariadb: a MariaDB server binary (mariadbd) on PATH, installed with apt-get (as
# root, or with passwordless sudo, as on hosted runners) when missing. Returns 0 when there
# is one; otherwise prints `MDL_SKIP: reason` and returns 77 (the step then fails unless
# MDL_ALLOW_SKIP names it: ci/lib/common.sh).
ensure_mariadb() {
  export PATH="$PATH:/usr/sbin"
  command -v mariadbd >/dev/null 2>&1 && return 0
  echo "mariadbd not found; installing mariadb-server"
  local sudo=()
  if [ "$(id -u)" != 0 ]; then
    if sudo -n true 2>/dev/null; then
      sudo=(sudo -n)
    else
      echo "MDL_SKIP: no mariadb-server, and it cannot be installed here (needs root or sudo)"
      return 77
    fi
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "MDL_SKIP: no mariadb-server, and no apt-get to install it"
    return 77
  fi
  if "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mariadb-server >/dev/null &&
    command -v mariadbd >/dev/null 2>&1; then
    return 0
  fi
  echo "MDL_SKIP: apt-get could not install mariadb-server"
  return 77
}

# ensure_corpus DIR: MariaDB's own test suite (the Debian package mariadb-test-data, of the
# version apt offers, the installed server's) extracted under DIR; prints the path of its
# mysql-test/ directory. MDL_CORPUS_DIR, when set, is used as it is (an extracted
# mysql-test/). Fails closed: returns 1 with a message when the package cannot be fetched
# or holds no mysql-test/main/ (`apt-get download` needs no root; `dpkg-deb -x` installs
# nothing).
ensure_corpus() {
  local dir=$1 mt
  if [ -n "${MDL_CORPUS_DIR:-}" ]; then
    if [ -d "$MDL_CORPUS_DIR/main" ]; then
      echo "$MDL_CORPUS_DIR"
      return 0
    fi
    echo "MDL_CORPUS_DIR=$MDL_CORPUS_DIR has no main/" >&2
    return 1
  fi
  mt="$dir/data/usr/share/mysql/mysql-test"
  if [ -d "$mt/main" ]; then
    echo "$mt"
    return 0
  fi
  mkdir -p "$dir" || return 1
  if ! (cd "$dir" && apt-get download mariadb-test-data >&2); then
    # The package lists may be missing on a fresh machine.
    local sudo=()
    [ "$(id -u)" != 0 ] && sudo=(sudo -n)
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 || true
    if ! (cd "$dir" && apt-get download mariadb-test-data >&2); then
      echo "could not download mariadb-test-data" >&2
      return 1
    fi
  fi
  local deb
  deb=$(ls "$dir"/mariadb-test-data_*.deb 2>/dev/null | head -n 1)
  if [ -z "$deb" ] || ! dpkg-deb -x "$deb" "$dir/data" >&2 || [ ! -d "$mt/main" ]; then
    echo "could not extract mysql-test/ from mariadb-test-data" >&2
    return 1
  fi
  echo "$mt"
}

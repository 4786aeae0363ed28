#!/usr/bin/env python3
"""Collects corpus-syntax-errors.tsv (issue 26 item 4).

Every statement that MariaDB's own test suite expects to fail with a syntax error
(`--error ER_PARSE_ERROR` or `--error 1064` before it in a mysql-test `.test` file) and
that MariaDB itself rejects as one in the default sql_mode: `PREPARE s FROM '...'` of its
text gives 1064 (the parser runs, nothing is executed). Statements with `$variables` are
left out; multi-line statements are joined; the first place of each distinct statement
is kept.

    corpus-syntax-errors.py MYSQL_TEST_DIR SOCKET > corpus-syntax-errors.tsv

MYSQL_TEST_DIR: the `mysql-test` folder of the Debian package mariadb-test-data (the
server's version); SOCKET: a throwaway server's Unix socket (root, no password).
"""
import os
import re
import subprocess
import sys

ERROR = re.compile(r'^\s*(--)?\s*error\s+([^;#]*);?\s*$', re.I)
DELIM = re.compile(r'^\s*(--)?\s*delimiter\s+(\S+)', re.I)


def statement_after(lines, j, delim):
    """The statement starting at line j (blank and comment lines skipped), or None."""
    buf = []
    while j < len(lines):
        s = lines[j].strip()
        if not buf and (s == '' or s.startswith('#')):
            j += 1
            continue
        if not buf and s.startswith('--'):
            return None
        buf.append(s)
        if s.endswith(delim):
            break
        j += 1
    st = ' '.join(buf).strip()
    if st.endswith(delim):
        st = st[:-len(delim)].strip()
    return st or None


def expected_syntax_errors(root):
    for dp, _, fn in sorted(os.walk(root)):
        for f in sorted(fn):
            if not f.endswith('.test'):
                continue
            p = os.path.join(dp, f)
            lines = open(p, encoding='utf-8', errors='replace').read().split('\n')
            delim = ';'
            for i, l in enumerate(lines):
                m = DELIM.match(l)
                if m:
                    d = m.group(2)
                    if not m.group(1) and d.endswith(delim) and len(d) > len(delim):
                        d = d[:-len(delim)]
                    delim = d
                    continue
                m = ERROR.match(l)
                if not m:
                    continue
                codes = [c.strip() for c in m.group(2).split(',')]
                if not all(c in ('ER_PARSE_ERROR', '1064') for c in codes):
                    continue
                st = statement_after(lines, i + 1, delim)
                if st and '$' not in st:
                    yield os.path.relpath(p, root), i + 2, st


def is_syntax_error(sock, sql):
    q = sql.replace('\\', '\\\\').replace("'", "\\'")
    script = f"SET @q = '{q}';\nPREPARE s FROM @q;\n"
    try:
        r = subprocess.run(['mariadb', '--no-defaults', '-S', sock, '-uroot', 'test',
                            '--batch'], input=script, capture_output=True, text=True,
                           timeout=10)
    except subprocess.TimeoutExpired:
        return False
    err = next((x for x in r.stderr.split('\n') if x.startswith('ERROR ')), '')
    return err.startswith('ERROR 1064 ') and 'at line 2' in err


def main():
    root, sock = sys.argv[1], sys.argv[2]
    print("# Statements MariaDB's own test suite (mariadb-test-data, mysql-test/**/*.test) "
          "expects to fail")
    print("# with ER_PARSE_ERROR (1064), each confirmed a syntax error on the server "
          "(PREPARE of its text")
    print("# gives 1064). FILE:LINE<TAB>STATEMENT; collected by "
          "models/conformance/corpus-syntax-errors.py.")
    seen = set()
    for at, line, st in expected_syntax_errors(root):
        if st in seen:
            continue
        seen.add(st)
        if is_syntax_error(sock, st):
            print(f"{at}:{line}\t{st}")


if __name__ == '__main__':
    main()

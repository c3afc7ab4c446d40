#!/usr/bin/env bash
# The user's manual (MkDocs, mkdocs.yml at the root, pages in docs/). The reference pages are
# written from the binary itself, so they cannot drift from it:
#   docs/reference/commands.md       every command's --help (and each subcommand's)
#   docs/reference/configuration.md  `torcrun config worker|server --reference`
#   docs/reference/spec-keys.md      `torcrun spec --keys`: the key table the spec reader checks with
#
#   scripts/docs.sh [BIN]           write the reference pages, then build the site into build/site
#   scripts/docs.sh --check [BIN]   fail when a reference page differs from what BIN prints, then
#                                   build the site with --strict into a temporary folder (the
#                                   suite's docs.site test)
#   mkdocs serve                    browse it while editing (after the first command)
# BIN defaults to build/src/torcrun. Installs mkdocs and mkdocs-material when missing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
check=0
[ "${1:-}" = --check ] && { check=1; shift; }
bin=${1:-$TORCRUN_ROOT/build/src/torcrun}
[ -x "$bin" ] || { torcrun_log "docs: no torcrun binary at $bin (build first: scripts/run.sh)"; exit 1; }
ensure_packages "${TORCRUN_DOCS_PACKAGES[@]}"
cd "$TORCRUN_ROOT"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# help_block TITLE ARGS...: a section with what `torcrun ARGS --help` prints.
help_block() {
    local title=$1; shift
    printf '\n## `%s`\n\n```text\n' "$title"
    "$bin" "$@" --help 2>&1
    printf '```\n'
}

{
    printf '# Commands\n\n'
    printf '<!-- Written by scripts/docs.sh from what each command'"'"'s --help prints; do not edit. -->\n\n'
    printf 'Every command and option, as `torcrun COMMAND --help` prints it. '
    printf 'Shell completion: `source <(torcrun completion bash)`.\n\n```text\n'
    "$bin" --help
    printf '```\n'
    for cmd in $("$bin" --help | awk '/^commands:/ {on=1; next} on && /^  [a-z]/ {print $1}'); do
        help_block "torcrun $cmd" "$cmd"
        case $cmd in
            config) help_block "torcrun config worker" config worker
                    help_block "torcrun config server" config server ;;
            workflows) help_block "torcrun workflows sync-status" workflows sync-status ;;
            ro-crate) help_block "torcrun ro-crate export" ro-crate export
                      help_block "torcrun ro-crate create" ro-crate create
                      help_block "torcrun ro-crate list" ro-crate list ;;
        esac
    done
} >"$work/commands.md"

{
    printf '# Configuration keys\n\n'
    printf '<!-- Written by scripts/docs.sh from `torcrun config worker|server --reference`; do not edit. -->\n\n'
    printf 'Every key of the worker'"'"'s and the server'"'"'s configuration file, with its type, default and range, '
    printf 'printed by `torcrun config worker --reference` and `torcrun config server --reference` from the '
    printf 'schema that checks the values. How the sources combine: [Configuration](../guides/configuration.md).\n\n'
    printf '## Worker\n\n'
    "$bin" config worker --reference
    printf '\n## Server\n\n'
    "$bin" config server --reference
} >"$work/configuration.md"

{
    printf '# Spec keys\n\n'
    printf '<!-- Written by scripts/docs.sh from `torcrun spec --keys`; do not edit. -->\n\n'
    printf 'Every key a workflow spec may hold, object by object, printed by `torcrun spec --keys` '
    printf '(`--json` for JSON) from the table the spec reader checks keys against. '
    printf 'The last column says how torcrun treats the key: **reads** it as Torc does, reads it '
    printf 'but **differs** from Torc (as the note says), **ignored** (accepted and stored, no effect in '
    printf 'torcrun, with a warning whenever the value asks for something) or **refused** by name with the reason. '
    printf 'The keys are the same in JSON, JSON5 and YAML; a KDL spec'"'"'s nodes map to them as Torc maps them '
    printf '([KDL](../TORC-COMPATIBILITY.md#kdl)). '
    printf 'Defaults, ranges and the finer rules: [Torc compatibility, §4](../TORC-COMPATIBILITY.md#4-spec-format).\n\n'
    "$bin" spec --keys
} >"$work/spec-keys.md"

status=0
for page in commands configuration spec-keys; do
    target=docs/reference/$page.md
    if [ $check = 1 ]; then
        if ! diff -u "$target" "$work/$page.md" >"$work/$page.diff"; then
            torcrun_log "docs: $target differs from what $bin prints (run scripts/docs.sh to rewrite it):"
            head -40 "$work/$page.diff" >&2
            status=1
        fi
    else
        cp "$work/$page.md" "$target"
    fi
done
[ $status = 0 ] || exit 1

site=$TORCRUN_ROOT/build/site
[ $check = 1 ] && site=$work/site
mkdocs build --strict --quiet --site-dir "$site"
torcrun_log "docs: site built in $site (open $site/index.html)"

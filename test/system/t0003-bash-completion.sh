#!/usr/bin/env bash
# `torcrun completion bash` driven as bash drives it: the script is sourced into a fresh bash,
# COMP_WORDS / COMP_CWORD set as for a TAB at the end of a command line, _torcrun called, and
# COMPREPLY checked. Then every option it offers for every command is given back to that
# command, which must know it (none is "unrecognised"), and the options of each --help must be
# offered.
set -euo pipefail
torcrun=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$torcrun" completion bash >"$work/completion.bash"
bash -n "$work/completion.bash" || fail "the script is not valid bash"

# complete LINE: the candidates bash would offer for LINE (a TAB at its end), one per line.
complete_line() {
    TORCRUN_BIN="$torcrun" LINE="$1" bash --norc --noprofile -c '
        source "$0"
        read -r -a COMP_WORDS <<<"$LINE"
        [[ "$LINE" == *" " ]] && COMP_WORDS+=("")
        COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
        COMP_LINE=$LINE COMP_POINT=${#LINE}
        _torcrun torcrun "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
        printf "%s\n" "${COMPREPLY[@]}"' "$work/completion.bash"
}
expect() {  # expect LINE WORD...: each WORD is among the candidates
    local line=$1; shift
    local got; got=$(cd "$work" && complete_line "$line")
    for w in "$@"; do
        grep -qxF -- "$w" <<<"$got" || fail "'$line<TAB>' does not offer '$w' (got: $(echo $got))"
    done
}
expect_only() {  # expect_only LINE WORD...: exactly these candidates, in any order
    local line=$1; shift
    local got; got=$(cd "$work" && complete_line "$line" | sort)
    local want; want=$(printf '%s\n' "$@" | sort)
    [ "$got" = "$want" ] || fail "'$line<TAB>' offers '$(echo $got)', expected '$(echo $want)'"
}

expect_only "torcrun sta" status
expect "torcrun " run submit worker jobs logs rerun report completion
expect_only "torcrun jobs --sta" --status
expect "torcrun logs --" --follow --stderr --attempt --output-dir --url
expect_only "torcrun workflows sy" sync-status
expect_only "torcrun config " worker server
expect "torcrun config worker --" --sources --set --url --mode
expect_only "torcrun allocation --mode " auto direct slurm
expect_only "torcrun allocation --mode sl" slurm
expect_only "torcrun completion " bash
# a value that is a path: files (and folders) of the current directory
mkdir "$work/outdir"; : >"$work/spec.yaml"
expect_only "torcrun run sp" spec.yaml
expect_only "torcrun run spec.yaml --output-dir out" outdir
expect_only "torcrun nosuchcommand --x" 

# Every offered option is one its command accepts, and every option --help prints is offered.
keys=$(sed -n "s/^_torcrun_options\[\([a-z_]*\)\]=.*/\1/p" "$work/completion.bash")
[ "$(wc -w <<<"$keys")" -ge 17 ] || fail "options for fewer than 17 commands: $keys"
expect_only "torcrun workflows --dr"
expect_only "torcrun workflows sync-status --dr" --dry-run
for key in $keys; do
    cmd=${key//__/ }; cmd=${cmd//_/-}  # workflows__sync_status -> "workflows sync-status"
    offered=$(sed -n "s/^_torcrun_options\[$key\]='\(.*\)'$/\1/p" "$work/completion.bash")
    takes_value=$(sed -n "s/^_torcrun_values\[$key\]='\(.*\)'$/\1/p" "$work/completion.bash")
    for opt in $offered; do
        [ "$opt" = -h ] || [ "$opt" = --help ] && continue
        # an option that takes a value gets one, so that --help stays the help flag and no
        # command starts its work (a server, a run) instead of printing its help
        value=(); [[ " $takes_value " == *" $opt "* ]] && value=(x)
        set +e
        out=$(cd "$work" && timeout 10 "$torcrun" $cmd "$opt" "${value[@]}" --help </dev/null 2>&1)
        rc=$?
        set -e
        [ $rc -ne 124 ] || fail "'torcrun $cmd $opt ${value[*]} --help' did not answer within 10 s"
        ! grep -q "unrecognised option" <<<"$out" || fail "completion offers '$opt' for '$cmd', which refuses it: $out"
    done
    for opt in $("$torcrun" $cmd --help 2>&1 | grep -oE '^ +(-[a-z] \[ )?--[a-z][a-z0-9-]*' | grep -oE -- '--[a-z][a-z0-9-]*'); do
        grep -qw -- "$opt" <<<"$offered" || fail "'torcrun $cmd --help' lists $opt; completion does not offer it"
    done
done
echo "ok"

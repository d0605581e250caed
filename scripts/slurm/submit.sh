#!/usr/bin/env bash
# Submit a sharded rollcall run to Slurm: an N-task job array (one shard per task) and a merge
# job that runs once every shard has succeeded. Run it on the cluster's login node.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: scripts/slurm/submit.sh --shards N --out DIR [options] -- FILE [rollcall run flags]

Submits an N-task Slurm job array, task I running
    rollcall run FILE [flags] --shard I/N --out DIR/parts --quiet
and a merge job, started only if every task succeeded (--dependency=afterok), running
    rollcall merge DIR/parts --out DIR
which writes the same summary.csv and distribution.csv (compare.csv) as one
`rollcall run FILE [flags]` on one machine. Prints both job ids.

Options:
  --shards N         number of shards = array tasks (required)
  --out DIR          results folder, on a file system every node sees (required);
                     parts go to DIR/parts, batch scripts and logs to DIR/slurm
  --partition P      Slurm partition (default: the cluster's default)
  --time T           time limit per task, e.g. 30:00 or 2-00:00:00 (default: the partition's)
  --cpus C           CPUs per task; each shard runs C threads (default: --threads if given, else 1)
  --binary PATH      rollcall binary (default: rollcall on PATH, else target/release/rollcall)
  --sbatch-opt OPT   extra sbatch option for both jobs, e.g. --sbatch-opt=--account=proj
                     (repeatable; written as an #SBATCH line, so no spaces)
  --wait             wait until the merge job ends; exit 0 only if the merged tables were written
  --poll S           seconds between squeue checks with --wait (default 10)
  --checkpoint S     each task saves its progress at most every S seconds
                     (DIR/parts/checkpoint-shard-I-of-N.json); a task rerun after a time
                     limit or a node failure resumes from it instead of starting over
  --no-check         skip the local dry check (a zero-trial run of the scenario with your flags)
  -h, --help         this text

After --: the scenario FILE, then any of --trials, --seed, --threads, --set K=V. Pass the
same flags you would give a single run; every shard gets exactly the same ones.

Example:
  scripts/slurm/submit.sh --shards 100 --out /scratch/$USER/rally --time 30:00 \
      -- configs/rally.toml --trials 1e12 --seed 7 --set unit.wardens.alive=4

A failed shard K: rerun it alone (with --checkpoint, it resumes), then merge again:
  sbatch --array=K DIR/slurm/shard.sbatch  &&  sbatch DIR/slurm/merge.sbatch
Exit status: 0 submitted (with --wait: merged), 1 Slurm refused or a job failed, 2 bad arguments.
EOF
}

die() { # exit 2: bad arguments
    echo "submit.sh: $*" >&2
    echo "Try 'scripts/slurm/submit.sh --help'." >&2
    exit 2
}
fail() { # exit 1: Slurm or a job failed
    echo "submit.sh: $*" >&2
    exit 1
}

if (($# == 0)); then
    usage >&2
    exit 2
fi

shards="" out="" partition="" time_limit="" cpus="" binary="" wait=0 poll=10 check=1 checkpoint=
sbatch_opts=()

# Reads an option's value: "--opt value" or "--opt=value"; sets $value and $shift_by.
take() {
    local opt=$1 rest=$2 next=${3-} have_next=$4
    if [[ $rest == *=* ]]; then
        value=${rest#*=}
        shift_by=1
    elif ((have_next)); then
        value=$next
        shift_by=2
    else
        die "$opt needs a value"
    fi
    [[ -n $value ]] || die "$opt needs a non-empty value"
}

while (($#)); do
    arg=$1
    name=${arg%%=*}
    case $name in
    --shards | --out | --partition | --time | --cpus | --binary | --sbatch-opt | --poll | --checkpoint)
        take "$name" "$arg" "${2-}" "$(($# > 1))"
        case $name in
        --shards) shards=$value ;;
        --out) out=$value ;;
        --partition) partition=$value ;;
        --time) time_limit=$value ;;
        --cpus) cpus=$value ;;
        --binary) binary=$value ;;
        --sbatch-opt) sbatch_opts+=("$value") ;;
        --poll) poll=$value ;;
        --checkpoint) checkpoint=$value ;;
        esac
        shift "$shift_by"
        ;;
    --wait) wait=1 && shift ;;
    --no-check) check=0 && shift ;;
    -h | --help) usage && exit 0 ;;
    --) shift && break ;;
    -*) die "unknown option '$arg' (rollcall run flags go after --: ... -- FILE --trials 1e9)" ;;
    *) die "unexpected '$arg' before --; write: submit.sh --shards N --out DIR -- $arg [flags]" ;;
    esac
done

[[ -n $shards ]] || die "--shards N is required"
[[ $shards =~ ^[1-9][0-9]{0,5}$ ]] && ((shards <= 100000)) ||
    die "--shards '$shards' must be a whole number from 1 to 100000"
[[ -n $out ]] || die "--out DIR is required"
[[ $out != *[[:space:]%]* ]] || die "--out '$out': spaces and % are not allowed in the folder (Slurm log paths)"

# ---- the rollcall part: FILE and the flags every shard gets ---------------------------------
(($#)) || die "no scenario file: put it after --, e.g. ... -- configs/rally.toml --trials 1e9"
file=$1
shift
[[ $file != -* ]] || die "the scenario FILE comes first after --, before '$file'"
run_flags=()
user_threads=""
while (($#)); do
    arg=$1
    name=${arg%%=*}
    case $name in
    --trials | --seed | --threads | --set)
        take "$name" "$arg" "${2-}" "$(($# > 1))"
        [[ $name == --threads ]] && user_threads=$value
        run_flags+=("$name" "$value")
        shift "$shift_by"
        ;;
    --quiet) shift ;; # every task runs with --quiet anyway
    --out) die "give the results folder as submit.sh's own --out (before --), not as a rollcall flag" ;;
    --shard) die "--shard is set by submit.sh for each task; give the count with --shards N" ;;
    --checkpoint | --resume) die "give --checkpoint S to submit.sh itself (before --); a rerun task resumes on its own" ;;
    --precision) die "--precision cannot be used with shards (where a run stops would depend on the other shards)" ;;
    -*) die "'$arg' is not a rollcall run flag submit.sh passes on (allowed: --trials, --seed, --threads, --set)" ;;
    *) die "one scenario file per submission: '$file' and '$arg' both given (a [sweep] in one file runs every point in one array)" ;;
    esac
done

# ---- checks -------------------------------------------------------------------------------------
[[ -z $cpus ]] && cpus=${user_threads:-1}
[[ $cpus =~ ^[1-9][0-9]{0,3}$ ]] || die "--cpus (default: --threads) '$cpus' must be a whole number from 1 to 9999"
[[ $poll =~ ^[1-9][0-9]*$ ]] || die "--poll '$poll' must be a whole number of seconds, at least 1"
[[ -z $checkpoint || $checkpoint =~ ^[0-9]{1,9}$ ]] || die "--checkpoint '$checkpoint' must be a whole number of seconds"
[[ -z $partition || $partition =~ ^[A-Za-z0-9_.,-]+$ ]] || die "--partition '$partition' is not a partition name"
[[ -z $time_limit || $time_limit =~ ^[0-9:-]+$ || $time_limit == UNLIMITED || $time_limit == INFINITE ]] ||
    die "--time '$time_limit' must look like MM, MM:SS, HH:MM:SS, D-HH or D-HH:MM:SS"
for o in ${sbatch_opts[@]+"${sbatch_opts[@]}"}; do
    [[ $o == -* && $o != *[[:space:]]* ]] || die "--sbatch-opt '$o' must be one sbatch option without spaces, e.g. --account=proj"
    case ${o%%=*} in
    --array | -a | --dependency | -d | --wrap | --output | -o | --error | -e | --parsable)
        die "--sbatch-opt '$o': submit.sh sets this one itself" ;;
    esac
done
[[ -f $file && -r $file ]] || die "scenario file '$file' does not exist or is not readable"
file=$(realpath -- "$file")

if [[ -z $binary ]]; then
    here=$(dirname -- "$(realpath -- "${BASH_SOURCE[0]}")")
    if command -v rollcall >/dev/null 2>&1; then
        binary=$(command -v rollcall)
    elif [[ -x $here/../../target/release/rollcall ]]; then
        binary=$here/../../target/release/rollcall
    else
        die "no rollcall binary: build it (cargo build --release) or pass --binary PATH"
    fi
fi
[[ -f $binary && -x $binary ]] || die "--binary '$binary' is not an executable file"
binary=$(realpath -- "$binary")

# A dry run with exactly the tasks' flags as shard 0 of the most shards rollcall takes (100000,
# which owns no chunk below 6.5e9 trials and one or two above): catches a bad file, --set,
# --trials or --seed here instead of in N failed tasks.
if ((check)); then
    scratch=$(mktemp -d)
    trap 'rm -rf -- "$scratch"' EXIT
    if ! msg=$("$binary" run "$file" ${run_flags[@]+"${run_flags[@]}"} \
        --shard 0/100000 --out "$scratch" --quiet 2>&1); then
        echo "$msg" >&2
        die "the dry check refused this scenario or these flags (see above; --no-check skips it)"
    fi
fi

for tool in sbatch squeue scontrol; do
    command -v "$tool" >/dev/null 2>&1 || fail "'$tool' not found: run this on a Slurm login node"
done

mkdir -p -- "$out" || die "cannot create --out '$out'"
out=$(realpath -- "$out")
parts=$out/parts
slurm_dir=$out/slurm
if compgen -G "$parts/shard-*.json" >/dev/null; then
    die "$parts already holds shard files from an earlier submission; merge or remove them, or use another --out"
fi

# ---- batch scripts: kept in DIR/slurm so a failed shard can be rerun alone --------------------
mkdir -p -- "$parts" "$slurm_dir/logs"
q() { printf '%q' "$1"; }
scenario=$(basename -- "$file" .toml)
task_flags=(${run_flags[@]+"${run_flags[@]}"})
[[ -n $user_threads ]] || task_flags+=(--threads "$cpus")
directives() { # $1: job name, $2: log file
    echo "#SBATCH --job-name=$1"
    echo "#SBATCH --output=$2"
    echo "#SBATCH --cpus-per-task=$cpus"
    [[ -z $partition ]] || echo "#SBATCH --partition=$partition"
    [[ -z $time_limit ]] || echo "#SBATCH --time=$time_limit"
    for o in ${sbatch_opts[@]+"${sbatch_opts[@]}"}; do echo "#SBATCH $o"; done
}

shard_script=$slurm_dir/shard.sbatch
# shellcheck disable=SC2016 # $SLURM_ARRAY_TASK_ID is expanded by the task, not here
{
    echo "#!/bin/bash"
    directives "rollcall-$scenario" "$slurm_dir/logs/shard-%a-job%A.out"
    echo "# Written by scripts/slurm/submit.sh: shard \$SLURM_ARRAY_TASK_ID of $shards."
    echo "# Rerun shards 3 and 7 only: sbatch --array=3,7 $shard_script"
    echo "set -euo pipefail"
    echo 'if [[ -z ${SLURM_ARRAY_TASK_ID:-} ]]; then'
    echo "    echo \"submit as an array: sbatch --array=0-$((shards - 1)) (or the failed indices) $shard_script\" >&2"
    echo "    exit 2"
    echo "fi"
    echo "echo \"shard \$SLURM_ARRAY_TASK_ID/$shards on \$(hostname), job \${SLURM_JOB_ID:-?}\""
    if [[ -n $checkpoint ]]; then
        echo "# A rerun of a task that was stopped (time limit, node failure) resumes from its checkpoint."
        echo "resume=()"
        printf 'if [[ -f %s/checkpoint-shard-"$SLURM_ARRAY_TASK_ID"-of-%s.json ]]; then\n' "$(q "$parts")" "$shards"
        printf '    resume=(--resume %s)\n' "$(q "$parts")"
        echo "fi"
    fi
    printf 'exec %s run %s' "$(q "$binary")" "$(q "$file")"
    for a in ${task_flags[@]+"${task_flags[@]}"}; do printf ' %s' "$(q "$a")"; done
    printf ' --shard "$SLURM_ARRAY_TASK_ID"/%s --out %s --quiet' "$shards" "$(q "$parts")"
    [[ -z $checkpoint ]] || printf ' --checkpoint %s "${resume[@]}"' "$checkpoint"
    printf '\n'
} >"$shard_script"

merge_script=$slurm_dir/merge.sbatch
{
    echo "#!/bin/bash"
    cpus=1 directives "rollcall-$scenario-merge" "$slurm_dir/logs/merge-job%j.out"
    echo "# Written by scripts/slurm/submit.sh: merges the $shards shards once all have succeeded."
    echo "set -euo pipefail"
    printf 'exec %s merge %s --out %s\n' "$(q "$binary")" "$(q "$parts")" "$(q "$out")"
} >"$merge_script"
chmod +x "$shard_script" "$merge_script"

# ---- submit -------------------------------------------------------------------------------------
stamp=$slurm_dir/submitted
: >"$stamp"
if ! array_out=$(sbatch --parsable --array="0-$((shards - 1))" "$shard_script" 2>&1); then
    fail "sbatch refused the array job: $array_out"
fi
array_id=${array_out##*$'\n'} # last line (warnings may come first)
array_id=${array_id%%;*}      # "id;cluster" on multi-cluster setups
[[ $array_id =~ ^[0-9]+$ ]] || fail "unexpected sbatch output: $array_out"
if ! merge_out=$(sbatch --parsable --dependency="afterok:$array_id" --kill-on-invalid-dep=yes \
    "$merge_script" 2>&1); then
    scancel "$array_id" 2>/dev/null || true
    fail "sbatch refused the merge job (array job $array_id cancelled): $merge_out"
fi
merge_id=${merge_out##*$'\n'}
merge_id=${merge_id%%;*}
[[ $merge_id =~ ^[0-9]+$ ]] || fail "unexpected sbatch output: $merge_out"
printf 'array=%s merge=%s shards=%s\n' "$array_id" "$merge_id" "$shards" >"$stamp"

echo "array job $array_id: $shards shards of $(basename -- "$file") -> $parts"
echo "merge job $merge_id: runs when every shard succeeded -> $out"
echo "scripts and logs: $slurm_dir"
((wait)) || exit 0

# ---- --wait: poll squeue until both jobs have left the queue -------------------------------------
active() { # does squeue still list job $1 (any task) as not finished?
    local states
    if ! states=$(squeue -h -j "$1" -o %T 2>&1); then
        [[ $states == *"Invalid job id"* ]] && return 1 # finished and already forgotten
        echo "submit.sh: squeue: $states (retrying)" >&2
        return 0
    fi
    local state
    while read -r state; do
        case $state in
        "" | COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | PREEMPTED | OUT_OF_MEMORY | BOOT_FAIL | DEADLINE) ;;
        *) return 0 ;;
        esac
    done <<<"$states"
    return 1
}
echo "waiting for jobs $array_id and $merge_id (squeue every ${poll} s) ..."
while active "$array_id" || active "$merge_id"; do
    sleep "$poll"
done

merge_state=$(scontrol -o show job "$merge_id" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -1 || true)
merge_state=${merge_state#JobState=}
if [[ -z $merge_state ]]; then # Slurm already forgot the job: judge by the files
    [[ -f $out/run.json && $out/run.json -nt $stamp ]] && merge_state=COMPLETED || merge_state=UNKNOWN
fi
if [[ $merge_state == COMPLETED ]]; then
    echo "merged: $out/summary.csv, $out/distribution.csv, $out/run.json"
    exit 0
fi

missing=()
for ((i = 0; i < shards; i++)); do
    [[ -f $parts/shard-$i-of-$shards.json ]] || missing+=("$i")
done
if ((${#missing[@]})); then
    list=$(
        IFS=,
        echo "${missing[*]}"
    )
    echo "submit.sh: ${#missing[@]} shard(s) failed: $list (logs: $slurm_dir/logs/shard-<I>-job$array_id.out);" \
        "the merge job ended $merge_state" >&2
    echo "rerun them, then merge:  id=\$(sbatch --parsable --array=$list $shard_script) &&" \
        "sbatch --dependency=afterok:\$id $merge_script" >&2
else
    echo "submit.sh: every shard wrote its part, but the merge job ended $merge_state" \
        "(log: $slurm_dir/logs/merge-job$merge_id.out); merge again: sbatch $merge_script" >&2
fi
exit 1

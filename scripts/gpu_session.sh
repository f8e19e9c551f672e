#!/usr/bin/env bash
# A lent GPU machine's R-NaD run, prepared to go in one call of at most ten minutes and to bring back what the
# session needs (the Classic TRAINING.md, "What the next GPU session should run"):
#   1. deepnash from this checkout on the machine's own PyTorch (no network there: every dependency but
#      platformdirs is in its image; that one travels as a wheel, see below);
#   2. R-NaD from the shipped Classic clone, self-play in the learner's process on the GPU, for MINUTES;
#   3. the run's summary (scripts/run_summary.py) and the GPU's memory and use, in the log ($OUT/gpu_session.log);
#   4. the run's latest checkpoint in $OUT/ckpt, to resume on a CPU with `deepnash train --resume`;
#   5. head to head with the clone, raw policies sampled, GAMES games on the machine's cores, until the
#      call's time (BUDGET seconds from the start) runs out; the games played are tallied either way.
# The settings are environment variables (defaults below).  Before the lent machine, test it on a CPU:
#   PY=.venv/bin/python OUT=/tmp/gpu-out DEVICE=cpu STEPS=2 ENVS=2 BATCH=2 MAX_STEPS=200 THREADS=2 GAMES=4 WORKERS=2 \
#       bash scripts/gpu_session.sh
# On the lent machine (platformdirs's wheel fetched here first, into the ignored folder .whl; carry it):
#   echo /.whl/ >> .git/info/exclude; python3 -m pip download --no-deps -d .whl platformdirs==4.3.6
#   run(command="bash scripts/gpu_session.sh", carry=[".whl"], timeout_s=600)
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
: "${OUT:=runs/gpu-out}" "${DEVICE:=cuda}" "${MINUTES:=6}" "${STEPS:=}" "${ENVS:=512}" "${BATCH:=128}"
: "${THREADS:=8}" "${LR:=5e-5}" "${HOLD:=4}" "${MAX_STEPS:=0}" "${SEED:=11}" "${GAMES:=400}" "${WORKERS:=14}"
: "${BUDGET:=570}" "${RUN:=runs/gpu-session}" "${PY:=python3}"
mkdir -p "$OUT"
log="$OUT/gpu_session.log"
exec > >(tee -a "$log") 2>&1
tee_pid=$! sampler=
# on every exit: stop the GPU sampler, whose output would hold the log's pipe open, and let tee write the last lines
finish() { [ -z "$sampler" ] || kill "$sampler" 2>/dev/null || true; exec >&- 2>&-; wait "$tee_pid"; }
trap finish EXIT
say() { echo "[$(date -u +%H:%M:%S) +$((SECONDS - start))s] $*"; }

if ! "$PY" -c "import platformdirs" 2>/dev/null; then
    if ! ls .whl/platformdirs-*.whl >/dev/null 2>&1; then
        say "error: platformdirs is missing and .whl holds no wheel of it"
        exit 2
    fi
    "$PY" -m pip install -q --no-index --no-deps --target /tmp/site .whl/platformdirs-*.whl
    export PYTHONPATH="/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
fi
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
DN=("$PY" -c 'import sys; from deepnash.cli import main; sys.argv[0] = "deepnash"; sys.exit(main())')
say "$("$PY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available())'), $(nproc) cores"
if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
    nvidia-smi --query-gpu=memory.used,utilization.gpu --format=csv,noheader,nounits -l 15 > /tmp/gpu_memory.csv 2>&1 &
    sampler=$!
fi

length=(--minutes "$MINUTES")
[ -n "$STEPS" ] && length=(--steps "$STEPS")
say "training: ${length[*]} on $DEVICE, $ENVS games in flight, $BATCH a batch"
rc=0
timeout -s TERM $((BUDGET - (SECONDS - start) - 60)) "${DN[@]}" train --variant classic --init shipped \
    --hold-reg "$HOLD" --eta 0.2 --lr "$LR" --setups walled \
    --device "$DEVICE" --actors 0 --envs "$ENVS" --batch-games "$BATCH" --threads "$THREADS" --max-steps "$MAX_STEPS" \
    "${length[@]}" --eval-games 0 --seed "$SEED" --out "$RUN" --no-progress || rc=$?
say "training ended (exit status $rc)"
[ -f "$RUN/latest" ] || { say "error: no checkpoint in $RUN"; exit 1; }
"$PY" scripts/run_summary.py "$RUN" || true
if [ -s /tmp/gpu_memory.csv ]; then
    say "GPU memory used at most $(cut -d, -f1 /tmp/gpu_memory.csv | sort -n | tail -1) MiB, utilisation" \
        "$(cut -d, -f2 /tmp/gpu_memory.csv | tr -d ' ' | paste -sd' ') % (every 15 s)"
fi
ckpt="$RUN/$(cat "$RUN/latest")"
mkdir -p "$OUT/ckpt"
cp "$ckpt"/* "$OUT/ckpt/"  # with the log, the eight files a call brings back at most
name=$(basename "$ckpt")
say "checkpoint $name in $OUT/ckpt ($(du -sh "$OUT/ckpt" | cut -f1)); to resume it elsewhere:" \
    "mkdir -p runs/R/$name && cp OUT/ckpt/* runs/R/$name/ && echo $name > runs/R/latest" \
    "&& deepnash train --resume runs/R ..."

if [ "$GAMES" -eq 0 ]; then
    say "done"
    exit 0
fi
R=threshold=off,discretize=off,eagerness=off,threats=off,memory=off,value_bounds=off
left=$((BUDGET - (SECONDS - start)))
say "head to head with the clone, raw policies sampled: $GAMES games, $WORKERS workers, at most ${left}s"
rm -rf "$RUN-h2h"
timeout -s TERM "$left" "${DN[@]}" arena "checkpoint:$RUN,weights=target,setup=walled,$R" \
    "shipped:classic,search=off,greedy=false,setup=walled,$R" --games "$GAMES" --variant classic \
    --workers "$WORKERS" --seed 901 --out "$RUN-h2h" > /dev/null || true
"$PY" - "$RUN-h2h" <<'EOF'
import collections, glob, json, sys
from deepnash.arena.stats import wilson
wins = draws = losses = 0
endings = collections.Counter()
for f in glob.glob(sys.argv[1] + "/*.result.json"):
    res = json.load(open(f))["result"]
    me = 0 if res["players"][0].startswith("checkpoint:") else 1
    outcome = "draw" if res["winner"] is None else "win" if res["winner"] == me else "loss"
    wins, draws, losses = wins + (outcome == "win"), draws + (outcome == "draw"), losses + (outcome == "loss")
    endings[f"{res['termination']} {outcome}"] += 1
n = wins + draws + losses
lo, hi = wilson(wins, n) if n else (0.0, 0.0)
print(f"R-NaD against the clone, raw policies sampled, seed 901: {wins}-{draws}-{losses} of {n}, "
      f"{100 * wins / max(n, 1):.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]; endings {dict(endings)}")
EOF
say "done"

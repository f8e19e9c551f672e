"""``POST /api/replay``: the browser's replay mode; an uploaded Gravon XML record, back as frames.

The request body is the XML file itself (at most ``frames.MAX_RECORD_BYTES``);
query ``name`` (the file's name, used in messages) and ``game`` (1-based, for
a file of several games).  Answers ``Frames.as_json()`` plus ``game`` and
``games``; 400 for malformed XML or a missing game (the message says what and
where), 413 for a file too large, 422 for a record the engine cannot replay
(an unsupported game type, an illegal move: the message names the move number).
"""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.concurrency import run_in_threadpool

from ..game.errors import RecordError
from ..notation.gravon import parse_records
from .frames import MAX_RECORD_BYTES, record_frames

router = APIRouter()


def replay_json(data: bytes, name: str, game: int) -> dict:
    """The frames of game ``game`` of the XML document ``data`` (see the module docstring).

    Raises:
        HTTPException: 400 (unreadable record, no such game) or 422 (the record does not replay).
    """
    try:
        records = parse_records(data, name)
    except RecordError as e:
        raise HTTPException(400, str(e)) from None
    if game > len(records):
        raise HTTPException(400, f"{name}: there is no game {game}; the file holds {len(records)}")
    try:
        frames = record_frames(records[game - 1])
    except RecordError as e:
        raise HTTPException(422, str(e)) from None
    return {**frames.as_json(), "game": game, "games": len(records)}


@router.post("/api/replay")
async def replay(request: Request, name: str = Query("upload.xml", max_length=200), game: int = Query(1, ge=1)) -> dict:
    too_big = f"the record is larger than {MAX_RECORD_BYTES // 1024} KiB; Gravon games are a few tens of KiB"
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_RECORD_BYTES:
        raise HTTPException(413, too_big)
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_RECORD_BYTES:
            raise HTTPException(413, too_big)
    if not data.strip():
        raise HTTPException(400, "no record: send the Gravon XML file as the request body")
    return await run_in_threadpool(replay_json, bytes(data), name, game)

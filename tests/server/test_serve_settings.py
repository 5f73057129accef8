"""``dp-arena serve``'s options become the server's settings, each option named as a
setting setting it, and the four read ones (--db, --data, --no-ladder, --house-bots)."""

from __future__ import annotations

import argparse
import dataclasses
import shlex
from pathlib import Path

from dp_arena.server.cli import add_serve_arguments, settings_from
from dp_arena.server.settings import ServerSettings


def test_every_option_named_as_a_setting_sets_it() -> None:
    parser = argparse.ArgumentParser()
    add_serve_arguments(parser)
    arguments = shlex.split(
        "--max-upload-bytes 7000 --uploads-per-hour 8 --requests-per-minute 9"
        " --writes-per-minute 10 --ladder-deals 11 --betting pot-limit"
        " --executor ray --workers 3 --ray-address auto --ladder-pause 1.5"
        " --check-states 12 --resamples 13 --behind-proxy --title T --table-size 4"
        " --match-timeout 14 --header-timeout 15 --body-timeout 16 --idle-timeout 17"
        " --max-connections 180 --max-connections-per-client 19"
        " --db sqlite:///x.db --data d --no-ladder --house-bots tag,equity"
    )
    settings = settings_from(parser.parse_args(arguments))
    expected = ServerSettings(
        db_url="sqlite:///x.db",
        data_dir=Path("d").absolute(),
        max_upload_bytes=7000,
        uploads_per_hour=8,
        requests_per_minute=9,
        writes_per_minute=10,
        ladder=False,
        ladder_deals=11,
        betting="pot-limit",
        executor="ray",
        workers=3,
        ray_address="auto",
        ladder_pause=1.5,
        check_states=12,
        resamples=13,
        behind_proxy=True,
        title="T",
        table_size=4,
        house_bots=("tag", "equity"),
        match_timeout=14.0,
        header_timeout=15.0,
        body_timeout=16.0,
        idle_timeout=17.0,
        max_connections=180,
        max_connections_per_client=19,
    )
    assert settings == expected
    # Every setting but the table's own (blinds, cap, checks at once) is an option.
    unset = {
        field.name
        for field in dataclasses.fields(ServerSettings)
        if getattr(settings, field.name) == field.default
    }
    assert unset == {"small_blind", "big_blind", "cap", "max_checking"}

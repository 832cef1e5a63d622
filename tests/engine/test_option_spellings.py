"""One spelling per option across commands: what a command writes to is `-o/--output` everywhere;
`--out`, the spelling build, notebooks and slides had, still parses for one release and is not shown."""

from __future__ import annotations

import click

from coursegen.cli import main


def every_command(group: click.Group, prefix: str = "coursegen") -> list[tuple[str, click.Command]]:
    found = []
    for name, command in sorted(group.commands.items()):
        found.append((f"{prefix} {name}", command))
        if isinstance(command, click.Group):
            found.extend(every_command(command, f"{prefix} {name}"))
    return found


def test_no_command_shows_another_spelling_of_output():
    commands = every_command(main)
    assert len(commands) > 20
    with_output = 0
    for path, command in commands:
        with click.Context(command, info_name=path) as ctx:
            shown = command.get_help(ctx)
        assert "--out " not in shown and "--out," not in shown, path
        for param in command.params:
            names = [o for o in param.opts if o != "--out"]
            if "-o" in names:
                assert "--output" in names, (path, names)
                with_output += 1
    assert with_output >= 10


def test_the_old_spelling_still_parses_for_build_notebooks_and_slides(tmp_path):
    for name in ("build", "notebooks", "slides"):
        command = main.commands[name]
        for spelling in ("--out", "--output", "-o"):
            ctx = command.make_context(name, [spelling, str(tmp_path / "x")])
            assert ctx.params["out_dir"] == tmp_path / "x", (name, spelling)

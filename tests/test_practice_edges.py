"""Practice rough edges (issue 26, item 4): why no reference position is
proposed once every candidate is studied (text and HTML), and `anki sync`
given the package instead of the collection."""

from __future__ import annotations


def test_references_say_why_none_is_proposed_after_exporting_every_error(cli, db_copy, tmp_path):
    before = cli("--no-config", "references", db=db_copy).stdout
    assert "No position to propose" not in before
    cli("--no-config", "anki", "export", tmp_path / "deck.apkg", db=db_copy)
    text = cli("--no-config", "references", db=db_copy).stdout
    head = [line for line in text.splitlines() if line.startswith("Reference positions")][0]
    n = int(head.split("—", 1)[1].split()[0])
    assert (f"No position to propose: all {n} candidate positions are already studied" in text
            and "exporting every error to Anki studies them all" in text)
    page = tmp_path / "r.html"
    cli("--no-config", "report", "--html", page, db=db_copy)
    html = page.read_text(encoding="utf-8")
    refs = html[html.index('<section id="references">'):]
    assert f"No position to propose: all {n} candidate positions are already studied" in refs.split("</section>")[0]


def test_anki_sync_of_a_package_asks_for_the_collection(cli, db_copy, tmp_path):
    deck = tmp_path / "deck.apkg"
    cli("--no-config", "anki", "export", deck, db=db_copy)
    res = cli("--no-config", "anki", "sync", deck, db=db_copy, check=False)
    assert res.returncode == 2 and "close Anki" not in res.stderr
    assert res.stderr.strip().splitlines() == [
        f"error: {deck}: an Anki package, not a collection: `anki sync` reads your reviews from Anki's collection "
        "file, collection.anki2 in your Anki profile's folder (e.g. ~/.local/share/Anki2/User 1/collection.anki2)"]

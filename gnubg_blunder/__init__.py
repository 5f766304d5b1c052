"""gnubg-blunder: statistics across every analysed backgammon match.

Data flows one way: source (gnubg live match, SGF, XG) -> importer ->
decision model -> store -> metrics (pure functions over decision arrays) ->
views.  See docs/architecture.md.
"""

__version__ = "0.1.0"

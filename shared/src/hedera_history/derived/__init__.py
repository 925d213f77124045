"""Derived state: account hbar balances computed from the transfer lists, stored as history.

``BalanceApplier`` applies complete blocks in order (and errata compensations at their times);
``ExclusiveBalanceApplier`` runs it only while holding the balance lease (one run at a time);
``balances.account_balance`` answers now / at a time; ``query`` shapes the API answers;
``snapshot`` seeds starting balances. See docs/errata.md (derived state).

Import from the modules: this file imports none of them, so a function that needs one module
does not load the others at its cold start.
"""

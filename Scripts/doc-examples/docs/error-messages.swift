// What docs/error-messages.md's block takes as given: the predicate language.
@_exported import PredicateDSL

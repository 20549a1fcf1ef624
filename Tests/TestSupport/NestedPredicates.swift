// Predicates nested to a chosen depth, in each shape the parser's nesting
// limit counts: for LimitsTests and Scripts/measure-parser-stack.sh, which
// compiles this file beside its driver (so it may import nothing).

/// Predicates nested `levels` deep around a comparison, by shape.
package enum NestedPredicates {
  /// The shapes that nest to the full depth: each level is one construct.
  package static let shapes = [
    "parentheses", "expression parentheses", "NOT", "!", "minus", "braces", "calls", "subscripts",
  ]

  /// The predicate of `shape` nested `levels` deep; `"subqueries"` nests
  /// `SUBQUERY`s, each of which counts more than one level.
  package static func text(_ shape: String, _ levels: Int) -> String {
    switch shape {
    case "parentheses": String(repeating: "(", count: levels) + "a == 1" + String(repeating: ")", count: levels)
    case "expression parentheses":
      "a == " + String(repeating: "(", count: levels) + "1" + String(repeating: ")", count: levels)
    case "NOT": String(repeating: "NOT ", count: levels) + "a == 1"
    case "!": String(repeating: "!", count: levels) + "a == 1"
    case "minus": "a == " + String(repeating: "-", count: levels) + "b"
    case "braces": "a IN " + String(repeating: "{", count: levels) + "b" + String(repeating: "}", count: levels)
    case "calls": "a == " + String(repeating: "abs(", count: levels) + "b" + String(repeating: ")", count: levels)
    case "subscripts": "a" + String(repeating: "[b", count: levels) + String(repeating: "]", count: levels) + " == 1"
    case "subqueries":
      "a == " + String(repeating: "SUBQUERY(x, $v, ", count: levels) + "b == 1"
        + String(repeating: ").@count == 1", count: levels)
    default: fatalError("unknown shape \(shape)")
    }
  }
}

import PredicateDSL

/// The values each attribute type accepts.
enum AttributeValues {
  /// `value` as a value of `type`, or nil when it is not one. Integers are
  /// accepted for doubles (converted); nothing else is coerced, as
  /// predicates never coerce strings and numbers either.
  static func coerce(_ value: FilterValue, to type: AttributeType) -> FilterValue? {
    switch (type, value) {
    case (_, .null): value
    case (.string, .string), (.integer, .int), (.double, .double), (.boolean, .bool), (.date, .date),
      (.uuid, .uuid), (.data, .data):
      value
    case (.double, .int(let number)): .double(Double(number))
    default: nil
    }
  }
}

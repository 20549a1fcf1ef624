internal import Foundation

// Key paths and collection operators applied to values, as pure functions:
// the compiler calls them at compile time to fold constants and captures
// them in evaluators otherwise. Each throws a `ValueFault` where Apple
// raises. The other operations are `Aggregates`, `Arithmetic`, `Casting`
// and `Indexing`, each in its own file.

extension FilterValue {
  /// Key-value coding's `valueForKey:`: a record's entry (nil when
  /// missing), mapped over the elements of a collection; `self` is the
  /// value itself and a string's `length` its length in UTF-16 units, as
  /// `NSString`'s; nil on anything else.
  package func value(forKey key: String) -> FilterValue {
    switch self {
    case .record(let record): record[key] ?? .null
    case .array(let elements): .array(elements.map { $0.value(forKey: key) })
    case .set(let elements): .set(Set(elements.map { $0.value(forKey: key) }))
    case .string(let text) where key == "length": .int(Int64(text.utf16.count))
    default: key == "self" ? self : .null
    }
  }

  /// Applies the rest of a key path: keys, and the collection operators
  /// `@count`, `@sum`, `@avg`, `@min`, `@max` and the union operators, which
  /// apply the components after them to each element.
  package func applying(_ components: ArraySlice<String>) throws(ValueFault) -> FilterValue {
    var value = self
    var index = components.startIndex
    while index < components.endIndex {
      let component = components[index]
      index += 1
      if component.hasPrefix("@") {
        return try value.applyingCollectionOperator(component.dropFirst(), then: components[index...])
      }
      value = value.value(forKey: component)
    }
    return value
  }

  private func applyingCollectionOperator(
    _ name: Substring, then rest: ArraySlice<String>
  ) throws(ValueFault) -> FilterValue {
    if case .null = self { return .null }
    guard let elements = collectionElements else {
      throw ValueFault(.notACollection, "@\(name) needs a collection, found \(typeName) \(shortDescription)")
    }
    if name == "count" {
      return try FilterValue.int(Int64(elements.count)).applying(rest)
    }
    var values: [FilterValue] = []
    values.reserveCapacity(elements.count)
    for element in elements { values.append(try element.applying(rest)) }
    switch name {
    case "sum": return try Aggregates.sum(values)
    case "avg": return try Aggregates.average(values)
    case "min": return try Aggregates.extreme(values, keepingSmaller: true)
    case "max": return try Aggregates.extreme(values, keepingSmaller: false)
    case "unionOfObjects": return .array(values.filter { !$0.isNull })
    case "distinctUnionOfObjects": return .array(Aggregates.distinct(values.filter { !$0.isNull }))
    case "unionOfArrays", "distinctUnionOfArrays", "distinctUnionOfSets":
      var flattened: [FilterValue] = []
      for value in values where !value.isNull {
        guard let inner = value.collectionElements else {
          throw ValueFault(.notACollection, "@\(name) needs collections of collections, found \(value.typeName)")
        }
        flattened += inner
      }
      if name == "unionOfArrays" { return .array(flattened) }
      return name == "distinctUnionOfSets" ? .set(Set(flattened)) : .array(Aggregates.distinct(flattened))
    default:
      throw ValueFault(.typeMismatch, "unknown collection operator @\(name)")
    }
  }
}

extension ExpressionSyntax.Subscript {
  /// The subscript as written in error messages: `[FIRST]`, `[SIZE]`, `[…]`.
  var text: String {
    switch self {
    case .first: "[FIRST]"
    case .last: "[LAST]"
    case .size: "[SIZE]"
    case .at: "[…]"
    }
  }
}

/// A `Codable` type whose values are the objects of one entity: a record.
///
/// A record's stored properties are keys of its entity, matched by their
/// coding keys (so `CodingKeys` renames work): attributes as Swift values,
/// a to-one relationship as an `ObjectID?`, a to-many one as `[ObjectID]`
/// or `Set<ObjectID>`. A record need not hold every key of its entity.
///
/// ```swift
/// struct Person: EntityRecord {
///   static let entityName = "Person"
///   var name: String
///   var age: Int?
///   var employer: ObjectID?
/// }
///
/// let ann = try context.insert(Person(name: "Ann", age: 30, employer: nil))
/// let adults = try context.fetch(Person.self, where: "age >= %d", 18)
/// ```
///
/// Any `Decodable` type reads a snapshot with ``ObjectSnapshot/decode(_:)``,
/// and any `Encodable` one writes with
/// ``ObjectContext/insert(_:as:)``; conforming to this protocol names the
/// entity once, so that calls need no entity name.
public protocol EntityRecord: Codable {
  /// The name of the entity whose objects this type stands for.
  static var entityName: String { get }
}

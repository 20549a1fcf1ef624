import Foundation

/// A minimal HTTP/1.1 GET over a loopback socket, for the server's tests
/// and its load tool: enough for `/health`, `/metrics`, `/demo-token` and
/// a browser's DevTools list, with no proxy from the environment in the
/// way.
public enum LoopbackHTTP {
  /// A failed request: what failed.
  public struct Failure: Error, CustomStringConvertible {
    /// What failed.
    public var description: String
  }

  /// Gets `path` from 127.0.0.1:`port`: the status and the body.
  ///
  /// - Throws: ``Failure`` when the connection fails or the answer is not
  ///   HTTP.
  public static func get(
    port: Int, path: String, headers: [String: String] = [:]
  ) throws(Failure) -> (status: Int, body: String) {
    let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { throw Failure(description: "socket() failed") }
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else { throw Failure(description: "connect to port \(port) failed") }
    var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
    for (name, value) in headers { request += "\(name): \(value)\r\n" }
    request += "\r\n"
    let bytes = Array(request.utf8)
    guard send(socket, bytes, bytes.count, 0) == bytes.count else {
      throw Failure(description: "send failed")
    }
    // Read to the end of the body: its Content-Length when given (a server
    // may keep the connection open), else the end of the connection.
    var response: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = recv(socket, &buffer, buffer.count, 0)
      if count <= 0 { break }
      response += buffer[0..<count]
      if let length = expectedLength(response), response.count >= length { break }
    }
    let text = String(decoding: response, as: UTF8.self)
    guard let headerEnd = text.range(of: "\r\n\r\n"),
      let status = Int(text.split(separator: " ").dropFirst().first ?? "")
    else { throw Failure(description: "not an HTTP response: \(text.prefix(200))") }
    var body = String(text[headerEnd.upperBound...])
    if text[..<headerEnd.lowerBound].lowercased().contains("transfer-encoding: chunked") {
      body = dechunk(body)
    }
    return (status, body)
  }

  /// The whole response's length, when its headers are in and give a
  /// Content-Length.
  private static func expectedLength(_ response: [UInt8]) -> Int? {
    let text = String(decoding: response, as: UTF8.self)
    guard let end = text.range(of: "\r\n\r\n") else { return nil }
    let headers = text[..<end.lowerBound].lowercased()
    guard let line = headers.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
      let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
    else { return nil }
    return text[..<end.upperBound].utf8.count + length
  }

  private static func dechunk(_ text: String) -> String {
    var result = ""
    var rest = Substring(text)
    while let lineEnd = rest.range(of: "\r\n"), let size = Int(rest[..<lineEnd.lowerBound], radix: 16), size > 0 {
      let start = lineEnd.upperBound
      let bytes = Array(rest[start...].utf8.prefix(size))
      result += String(decoding: bytes, as: UTF8.self)
      rest = Substring(String(decoding: Array(rest[start...].utf8.dropFirst(size + 2)), as: UTF8.self))
    }
    return result
  }
}

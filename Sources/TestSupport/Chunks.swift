// A sound file's chunks as libsndfile reads them back: the iXML document, for tests of what was written.
import CSndFile

/// The iXML chunk of the sound file at `path` (WAV, RF64, AIFF, CAF), or nil if it has none.
public func ixmlDocument(_ path: String) throws -> String? {
    var info = SF_INFO()
    guard let file = sf_open(path, Int32(SFM_READ), &info) else { throw TestFailure("cannot open \(path)") }
    defer { sf_close(file) }
    var wanted = SF_CHUNK_INFO()
    withUnsafeMutableBytes(of: &wanted.id) { $0.copyBytes(from: "iXML".utf8) }
    wanted.id_size = 4
    guard let iterator = sf_get_chunk_iterator(file, &wanted) else { return nil }
    var chunk = SF_CHUNK_INFO()
    guard sf_get_chunk_size(iterator, &chunk) == 0, chunk.datalen > 0 else { return nil }
    var bytes = [UInt8](repeating: 0, count: Int(chunk.datalen))
    let status = bytes.withUnsafeMutableBytes { raw -> Int32 in
        chunk.data = raw.baseAddress
        return sf_get_chunk_data(iterator, &chunk)
    }
    return status == 0 ? String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self) : nil
}

/// The text of the first element `name` in an iXML document, or nil.
public func ixmlValue(_ name: String, in document: String) -> String? {
    guard let open = document.firstRange(of: "<\(name)>"),
          let close = document[open.upperBound...].firstRange(of: "</\(name)>") else { return nil }
    return String(document[open.upperBound..<close.lowerBound])
}

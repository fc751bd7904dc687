/// A URL's user name and password (`https://user:secret@host/…`) are never written to a trace or
/// a results file: they are removed from the authority, and the rest is kept byte for byte.
public enum URLCredentials {
    public static func removed(from url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        let authorityEnd = url[scheme.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? url.endIndex
        guard let at = url[scheme.upperBound..<authorityEnd].lastIndex(of: "@") else { return url }
        return String(url[..<scheme.upperBound]) + String(url[url.index(after: at)...])
    }
}

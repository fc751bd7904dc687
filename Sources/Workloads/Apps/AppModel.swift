/// A model of one app: its screens and habits, driving one user's session.
public protocol AppModel: Sendable {
    /// The app's name as traces carry it.
    var name: String { get }
    /// Bumped whenever the model's behaviour changes, so old traces are told apart.
    var modelVersion: String { get }
    var behaviour: UserBehaviour { get }
    /// All launches of the app by one user.
    func run(_ session: UserSession) async throws
}

/// The five modelled apps.
public enum AppName: String, CaseIterable, Sendable {
    case articleProject = "articleproject"
    case vanilladin
    case headlines
    case picterest
    case myMarket = "mymarket"

    public var model: any AppModel {
        switch self {
        case .articleProject: ArticleProjectModel()
        case .vanilladin: VanilladinModel()
        case .headlines: HeadlinesModel()
        case .picterest: PicterestModel()
        case .myMarket: MyMarketModel()
        }
    }
}

extension UserSession {
    /// Loads an API page and parses it as the app does; nil when offline.
    func page(_ service: Service, host: String, path: String) async throws -> ServicePage? {
        guard let data = try await api(host: host, path: path) else { return nil }
        do {
            return try ServiceResponses.parse(data, service: service, file: "https://\(host)\(path)")
        } catch {
            throw RecordingError.badResponse(path, reason: error.description)
        }
    }

    /// A search term: a few are typed by many users, most by few.
    func searchTerm(from terms: [String]) -> String {
        terms[random.zipfRank(count: terms.count, alpha: 0.9)]
    }
}

/// Search words for the models; popularity follows their order.
enum SearchTerms {
    static let news = ["apple", "bitcoin", "election", "weather", "samsung", "football", "ai", "tesla", "climate", "k-pop",
                       "economy", "covid", "olympics", "nasa", "movies", "travel", "health", "startup", "iphone", "music",
                       "energy", "housing", "baseball", "gaming", "science", "food", "art", "books", "cars", "space"]
    static let books = ["swift", "harry potter", "한강", "python", "economics", "history", "cooking", "poetry", "design", "ios",
                        "novel", "children", "travel", "philosophy", "english", "math", "art", "comics", "self help", "cats",
                        "photography", "architecture", "music", "gardening", "startup", "sql", "kotlin", "chess", "yoga", "film"]
    static let products = ["mac", "iphone", "cup", "tumbler", "book", "shirt", "shoes", "bag", "desk", "lamp",
                           "keyboard", "mouse", "chair", "pen", "watch", "camera", "sofa", "plant", "snack", "coffee"]
}

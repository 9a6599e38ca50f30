/// Who is waiting for a call: a person (a command, an inline query, the weekly post at its
/// minute) or nobody yet (fetching a post's weeks ahead of time). Carried by the task, so that
/// the one client protocol and the code between the caller and the rate limiter stay unaware
/// of it: a call made inside `RequestPriority.$current.withValue(.background) { … }` is
/// background work, every other call is interactive.
public enum RequestPriority: Sendable, Equatable {
    case interactive
    /// Takes only what interactive calls leave of a service's budget (`RateLimited`).
    case background

    /// The priority of the calls the current task makes.
    @TaskLocal public static var current: RequestPriority = .interactive
}

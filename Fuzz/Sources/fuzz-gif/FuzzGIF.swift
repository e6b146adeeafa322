import CLibFuzzer
import FuzzTargets
import Glibc

@main
enum FuzzGIF {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { FuzzTarget.gif.fuzzOneInput($0, $1) })
    }
}

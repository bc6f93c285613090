"""A small TAP producer: meson's 'tap' protocol counts each case (scripts/test too).
The plan comes last, so a script need not know its number of cases up front."""
import sys


class Tap:
    def __init__(self):
        self.count = 0
        self.failed = 0

    @staticmethod
    def skip_all(reason):
        print(f"1..0 # SKIP {reason}", flush=True)
        sys.exit(0)

    def case(self, name, passed, diagnostics=""):
        self.count += 1
        if not passed:
            self.failed += 1
        print(f"{'ok' if passed else 'not ok'} {self.count} - {name}", flush=True)
        if diagnostics and not passed:
            for line in str(diagnostics).splitlines():
                print(f"# {line}", flush=True)

    def skip(self, name, reason):
        self.count += 1
        print(f"ok {self.count} - {name} # SKIP {reason}", flush=True)

    def check(self, name, fn):
        """One case from a function that raises (AssertionError or other) on failure."""
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - every failure is reported alike
            self.case(name, False, f"{type(e).__name__}: {e}")
        else:
            self.case(name, True)

    def finish(self):
        """Prints the plan; returns the exit status."""
        print(f"1..{self.count}", flush=True)
        return 1 if self.failed else 0

package verso;

import java.util.List;
import java.util.Optional;

import verso.range.Range;
import verso.testing.Check;
import verso.testing.Test;

public class VersionsTest {
    private static final List<Version> PUBLISHED =
        Versions.parseAll(List.of("1.0.0", "1.1.0", "1.2.0-beta.1", "1.2.0", "2.0.0-rc.1", "2.0.0", "2.1.3"));

    @Test
    public void sortsAscending() {
        List<Version> sorted = Versions.sorted(List.of(Version.parse("2.0.0"), Version.parse("1.0.0"), Version.parse("1.0.0-rc.1")));
        Check.equal("[1.0.0-rc.1, 1.0.0, 2.0.0]", sorted.toString());
    }

    @Test
    public void latestInRange() {
        Check.equal(Optional.of(Version.parse("1.2.0")), Versions.latest(PUBLISHED, Range.parse("^1.0.0")));
        Check.equal(Optional.of(Version.parse("2.1.3")), Versions.latest(PUBLISHED, Range.parse(">=1.0.0")));
        Check.equal(Optional.empty(), Versions.latest(PUBLISHED, Range.parse("^3.0.0")));
    }

    @Test
    public void matchingSkipsPrereleasesUnlessNamed() {
        Check.equal("[1.0.0, 1.1.0, 1.2.0]", Versions.matching(PUBLISHED, Range.parse("1.x")).toString());
        Check.equal("[2.0.0-rc.1, 2.0.0, 2.1.3]", Versions.matching(PUBLISHED, Range.parse(">=2.0.0-rc.1")).toString());
    }

    @Test
    public void latestRelease() {
        Check.equal(Optional.of(Version.parse("2.1.3")), Versions.latestRelease(PUBLISHED));
        Check.equal(Optional.empty(), Versions.latestRelease(List.of(Version.parse("1.0.0-rc.1"))));
    }
}

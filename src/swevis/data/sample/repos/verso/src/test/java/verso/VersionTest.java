package verso;

import java.util.List;

import verso.testing.Check;
import verso.testing.Test;

public class VersionTest {
    @Test
    public void parsesThreeNumbers() {
        Version v = Version.parse("1.12.3");
        Check.equal(1, v.major());
        Check.equal(12, v.minor());
        Check.equal(3, v.patch());
        Check.isFalse(v.isPrerelease(), "1.12.3 is a release");
    }

    @Test
    public void acceptsLeadingV() {
        Check.equal(new Version(2, 0, 1), Version.parse("v2.0.1"));
        Check.equal(new Version(2, 0, 1), Version.parse(" =2.0.1 "));
    }

    @Test
    public void parsesPrerelease() {
        Version v = Version.parse("1.0.0-alpha.1");
        Check.equal(List.of("alpha", "1"), v.prerelease());
        Check.equal("1.0.0-alpha.1", v.toString());
    }

    @Test
    public void rejectsLeadingZeros() {
        ParseException e = Check.raises(ParseException.class, () -> Version.parse("1.02.3"));
        Check.isTrue(e.getMessage().contains("leading zero"), e.getMessage());
    }

    @Test
    public void rejectsMissingNumbers() {
        Check.raises(ParseException.class, () -> Version.parse("1.2"));
        Check.raises(ParseException.class, () -> Version.parse("1..2"));
    }

    @Test
    public void rejectsBadIdentifiers() {
        Check.raises(ParseException.class, () -> Version.parse("1.0.0-rc..1"));
        Check.raises(ParseException.class, () -> Version.parse("1.0.0-rc_1"));
    }

    @Test
    public void ordersByNumbers() {
        Check.isTrue(Version.parse("1.2.3").isBefore(Version.parse("1.10.0")), "1.2.3 < 1.10.0");
        Check.isTrue(Version.parse("2.0.0").isAfter(Version.parse("1.99.99")), "2.0.0 > 1.99.99");
    }

    @Test
    public void releaseSortsAfterItsPrereleases() {
        Check.isTrue(Version.parse("1.0.0-rc.1").isBefore(Version.parse("1.0.0")), "rc before release");
        Check.isTrue(Version.parse("1.0.0-alpha").isBefore(Version.parse("1.0.0-alpha.1")), "shorter first");
        Check.isTrue(Version.parse("1.0.0-alpha").isBefore(Version.parse("1.0.0-beta")), "alpha before beta");
    }

    @Test
    public void nextVersions() {
        Version v = Version.parse("1.4.2");
        Check.equal("2.0.0", v.nextMajor().toString());
        Check.equal("1.5.0", v.nextMinor().toString());
        Check.equal("1.4.3", v.nextPatch().toString());
        Check.equal("1.4.2", Version.parse("1.4.2-rc.1").nextPatch().toString());
    }
}

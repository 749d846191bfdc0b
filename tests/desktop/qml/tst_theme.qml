import QtQuick
import QtTest
import "../../../qml"

TestCase {
    name: "Theme"

    function cleanup() {
        Theme.mode = "system"
        Theme.systemWindow = "#ffffff"
    }

    function test_explicit_modes() {
        Theme.mode = "dark"
        verify(Theme.dark)
        verify(Theme.background.hslLightness < 0.5)
        verify(Theme.text.hslLightness > 0.5)
        Theme.mode = "light"
        verify(!Theme.dark)
        verify(Theme.background.hslLightness > 0.5)
        verify(Theme.text.hslLightness < 0.5)
    }

    function test_system_mode_follows_the_platform_palette() {
        Theme.mode = "system"
        Theme.systemWindow = "#202124"
        verify(Theme.dark)
        Theme.systemWindow = "#efefef"
        verify(!Theme.dark)
    }

    function test_status_colours() {
        compare(Theme.statusColor("ok"), Theme.ok)
        compare(Theme.statusColor("error"), Theme.error)
        compare(Theme.statusColor("interrupted"), Theme.warning)
    }
}

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// Providers as the backend sees them (keys are never shown), the default,
// where the settings live, and the theme.
Rectangle {
    id: root
    property var workbench
    property string themeMode: "system"
    signal themeChosen(string mode)
    signal closeRequested()
    color: Theme.background

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: 16
        spacing: 10
        RowLayout {
            Layout.fillWidth: true
            Label { text: "Settings"; font.pixelSize: 18; font.bold: true; color: Theme.text; Layout.fillWidth: true }
            Button { text: "Close"; onClicked: root.closeRequested() }
        }
        Label {
            text: "Default provider: " + (root.workbench ? root.workbench.defaultProvider : "")
            textFormat: Text.PlainText
            color: Theme.text
        }
        Label {
            text: "Settings file: " + (root.workbench ? root.workbench.settingsFile : "") + " (edit it, or use environment variables; the backend reads it)"
            textFormat: Text.PlainText
            color: Theme.muted
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
        Label { text: "Providers"; color: Theme.muted; font.pixelSize: 11 }
        ListView {
            objectName: "providerList"
            Layout.fillWidth: true
            Layout.preferredHeight: Math.min(contentHeight, 240)
            clip: true
            model: root.workbench ? root.workbench.providers : null
            delegate: RowLayout {
                required property string id
                required property string kind
                required property string baseUrl
                required property string model
                required property bool configured
                width: ListView.view.width
                Label { text: parent.id; textFormat: Text.PlainText; font.bold: true; color: Theme.text; Layout.preferredWidth: 140 }
                Label { text: parent.kind; textFormat: Text.PlainText; color: Theme.muted; Layout.preferredWidth: 140 }
                Label { text: parent.baseUrl; textFormat: Text.PlainText; color: Theme.muted; elide: Text.ElideRight; Layout.fillWidth: true }
                Label { text: parent.model; textFormat: Text.PlainText; color: Theme.text; Layout.preferredWidth: 180 }
                Label {
                    text: parent.configured ? "configured" : "no key"
                    color: parent.configured ? Theme.ok : Theme.warning
                }
            }
        }
        Label { text: "Theme"; color: Theme.muted; font.pixelSize: 11 }
        RowLayout {
            Repeater {
                model: ["system", "light", "dark"]
                delegate: RadioButton {
                    required property string modelData
                    text: modelData
                    checked: root.themeMode === modelData
                    onClicked: root.themeChosen(modelData)
                }
            }
        }
        Item { Layout.fillHeight: true }
    }
}

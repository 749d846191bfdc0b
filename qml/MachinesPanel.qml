import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// This computer and the remote machines (ava machine add): one row each
// with its state; the selected one is what every view shows. Adding a
// machine asks for a name and [user@]host[:port]; an unknown host key is
// shown with its fingerprint and accepted only by an explicit click.
ColumnLayout {
    id: root
    property var workbench
    spacing: 2

    readonly property var prompt: root.workbench ? root.workbench.hostKeyPrompt : ({})
    // Opened and closed from here: a `visible` binding would be broken by
    // the dialog's own close.
    onPromptChanged: {
        if (root.prompt.fingerprint) hostKeyDialog.open()
        else if (hostKeyDialog.opened) hostKeyDialog.close()
    }
    readonly property var keyPrompt: root.workbench ? root.workbench.passphrasePrompt : ({})
    onKeyPromptChanged: {
        if (root.keyPrompt.key) passphraseDialog.open()
        else if (passphraseDialog.opened) passphraseDialog.close()
    }

    function stateText(state, updatePending, running) {
        const words = { connected: "connected", connecting: "connecting…", starting: "starting…",
                        reconnecting: "reconnecting…", hostkey: "host key needs approval",
                        passphrase: "key needs its passphrase",
                        failed: "failed", idle: "not connected" }
        return (words[state] || state) + (updatePending ? " · update pending" : "")
               + (running > 0 ? " · " + running + (running === 1 ? " turn running" : " turns running") : "")
    }

    RowLayout {
        Layout.fillWidth: true
        Label { text: "Machines"; color: Theme.muted; font.pixelSize: 11; Layout.fillWidth: true }
        ToolButton {
            objectName: "addMachineButton"
            text: "+"
            font.pixelSize: 13
            Accessible.name: "Add a machine"
            ToolTip.visible: hovered
            ToolTip.text: "Add a machine reached over SSH"
            onClicked: addDialog.open()
        }
    }

    Repeater {
        model: root.workbench ? root.workbench.machines : null
        delegate: ItemDelegate {
            id: row
            required property string id
            required property string hostname
            required property string state
            required property string message
            required property string version
            required property bool remote
            required property bool selected
            required property bool updatePending
            required property int runningTurns
            objectName: "machine-" + id
            Layout.fillWidth: true
            highlighted: selected
            padding: 4
            onClicked: root.workbench.selectMachine(id)
            ToolTip.visible: hovered && message !== ""
            ToolTip.text: message
            contentItem: RowLayout {
                spacing: 6
                Rectangle {
                    width: 8; height: 8; radius: 4
                    color: row.state === "connected" ? Theme.ok
                         : row.state === "failed" || row.state === "hostkey" ? Theme.error
                         : row.state === "idle" ? Theme.muted : Theme.warning
                }
                ColumnLayout {
                    spacing: 0
                    Layout.fillWidth: true
                    Label {
                        objectName: "machineLabel"
                        textFormat: Text.PlainText
                        text: (row.remote ? row.id + " · " + row.hostname : row.hostname)
                        color: Theme.text
                        font.bold: row.selected
                        elide: Text.ElideRight
                        Layout.fillWidth: true
                    }
                    Label {
                        objectName: "machineState"
                        textFormat: Text.PlainText
                        text: root.stateText(row.state, row.updatePending, row.runningTurns)
                              + (row.version !== "" ? " · v" + row.version : "")
                        color: Theme.muted
                        font.pixelSize: 10
                        elide: Text.ElideRight
                        Layout.fillWidth: true
                    }
                }
                ToolButton {
                    text: "Remove"
                    font.pixelSize: 10
                    visible: row.remote && (row.hovered || row.highlighted)
                    onClicked: root.workbench.removeMachine(row.id)
                }
            }
        }
    }

    Dialog {
        id: addDialog
        objectName: "addMachineDialog"
        parent: Overlay.overlay
        anchors.centerIn: parent
        modal: true
        title: "Add a machine"
        standardButtons: Dialog.Ok | Dialog.Cancel
        width: 420

        // What the OK button does, also for the end-to-end automation.
        function submit(name, destination, identity) {
            nameField.text = name
            destinationField.text = destination
            identityField.text = identity
            accept()
        }

        onOpened: { nameField.text = ""; destinationField.text = ""; identityField.text = ""; transportBox.currentIndex = 0; nameField.forceActiveFocus() }
        onAccepted: {
            if (root.workbench.addMachine(nameField.text, destinationField.text, identityField.text,
                                          transportBox.currentValue))
                root.workbench.selectMachine(nameField.text.trim())
        }

        ColumnLayout {
            anchors.fill: parent
            spacing: 6
            Label { text: "Name"; color: Theme.muted; font.pixelSize: 11 }
            TextField { id: nameField; objectName: "machineName"; Layout.fillWidth: true; placeholderText: "gpu" }
            Label { text: "SSH destination"; color: Theme.muted; font.pixelSize: 11 }
            TextField {
                id: destinationField
                objectName: "machineDestination"
                Layout.fillWidth: true
                placeholderText: "alice@gpu.example.com:22 or an ~/.ssh/config alias"
            }
            Label { text: "SSH client"; color: Theme.muted; font.pixelSize: 11 }
            ComboBox {
                id: transportBox
                objectName: "machineTransport"
                Layout.fillWidth: true
                model: [ { value: "libssh2", text: "Built in (libssh2)" },
                         { value: "openssh", text: "System ssh (RSA keys, ProxyJump, FIDO keys)" } ]
                textRole: "text"
                valueRole: "value"
            }
            Label { text: "Identity file (optional)"; color: Theme.muted; font.pixelSize: 11 }
            TextField { id: identityField; objectName: "machineIdentity"; Layout.fillWidth: true; placeholderText: "~/.ssh/id_ed25519" }
            Label {
                text: "Ava signs in with ssh-agent's keys and your identity files, checks the host key against ~/.ssh/known_hosts, and installs itself on the machine if needed."
                wrapMode: Text.WordWrap
                color: Theme.muted
                font.pixelSize: 11
                Layout.fillWidth: true
            }
        }
    }

    Dialog {
        id: hostKeyDialog
        objectName: "hostKeyDialog"
        parent: Overlay.overlay
        anchors.centerIn: parent
        modal: true
        closePolicy: Popup.NoAutoClose
        title: "Unknown host key"
        width: 520
        readonly property string machine: root.prompt.machine || ""
        readonly property string fingerprint: root.prompt.fingerprint || ""

        onAccepted: root.workbench.acceptHostKey(machine, fingerprint)
        onRejected: root.workbench.selectMachine("local")

        ColumnLayout {
            anchors.fill: parent
            spacing: 8
            Label {
                text: "The host key of " + hostKeyDialog.machine + " is not known yet. Compare its fingerprint with the server's (ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub there) before you accept it."
                textFormat: Text.PlainText
                wrapMode: Text.WordWrap
                color: Theme.text
                Layout.fillWidth: true
            }
            TextField {
                objectName: "hostKeyFingerprint"
                text: (root.prompt.type || "") + " " + hostKeyDialog.fingerprint
                readOnly: true
                selectByMouse: true
                font.family: "monospace"
                Layout.fillWidth: true
            }
        }
        footer: DialogButtonBox {
            Button {
                objectName: "acceptHostKeyButton"
                text: "Accept and connect"
                DialogButtonBox.buttonRole: DialogButtonBox.AcceptRole
            }
            Button {
                text: "Cancel"
                DialogButtonBox.buttonRole: DialogButtonBox.RejectRole
            }
        }
    }

    Dialog {
        id: passphraseDialog
        objectName: "passphraseDialog"
        parent: Overlay.overlay
        anchors.centerIn: parent
        modal: true
        closePolicy: Popup.NoAutoClose
        title: "Passphrase"
        standardButtons: Dialog.Ok | Dialog.Cancel
        width: 460
        readonly property string machine: root.keyPrompt.machine || ""

        // What OK does, also for the end-to-end automation.
        function answer(text) {
            passphraseField.text = text
            accept()
        }

        onOpened: { passphraseField.text = ""; passphraseField.forceActiveFocus() }
        // The field is emptied at once: the text goes to the connection only.
        onAccepted: { const text = passphraseField.text; passphraseField.text = ""; root.workbench.answerPassphrase(machine, text) }
        onRejected: { passphraseField.text = ""; root.workbench.answerPassphrase(machine, "") }

        ColumnLayout {
            anchors.fill: parent
            spacing: 8
            Label {
                text: "Connecting to " + passphraseDialog.machine + " needs the passphrase of " + (root.keyPrompt.key || "") + ". Cancel skips this key."
                textFormat: Text.PlainText
                wrapMode: Text.WordWrap
                color: Theme.text
                Layout.fillWidth: true
            }
            TextField {
                id: passphraseField
                objectName: "passphraseField"
                echoMode: TextInput.Password
                Layout.fillWidth: true
                onAccepted: passphraseDialog.accept()
            }
        }
    }
}

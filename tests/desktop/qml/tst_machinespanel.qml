import QtQuick
import QtQuick.Controls
import QtTest
import "../../../qml"

// The machines panel against a stand-in for the Workbench: each machine
// with its state, selecting one, adding one through the dialog, and an
// unknown host key shown with its fingerprint and accepted only by a click.
Item {
    width: 700
    height: 600

    QtObject {
        id: fake
        // Filled once: delegates of a cleared model linger until deleted.
        property var machines: ListModel {
            Component.onCompleted: {
                append({ id: "local", hostname: "This computer", state: "idle", message: "",
                         version: "", pid: 0, remote: false, selected: false, updatePending: false,
                         runningTurns: 0 })
                append({ id: "gpu", hostname: "alice@gpu.example.com", state: "connected", message: "",
                         version: "0.1.0", pid: 42, remote: true, selected: true, updatePending: true,
                         runningTurns: 2 })
            }
        }
        property var hostKeyPrompt: ({})
        property var passphrasePrompt: ({})
        property var calls: []
        function selectMachine(name) { calls.push(["select", name]) }
        function addMachine(name, destination, identity, transport) {
            calls.push(["add", name, destination, identity, transport])
            return name !== "bad name"
        }
        function removeMachine(name) { calls.push(["remove", name]) }
        function acceptHostKey(name, fingerprint) { calls.push(["accept", name, fingerprint]) }
        function answerPassphrase(name, passphrase) { calls.push(["passphrase", name, passphrase]) }
    }

    MachinesPanel {
        id: panel
        width: 300
        workbench: fake
    }

    TestCase {
        name: "MachinesPanel"
        when: windowShown

        function init() {
            fake.hostKeyPrompt = ({})
            fake.passphrasePrompt = ({})
            fake.calls = []
        }

        function test_each_machine_with_its_state() {
            const gpu = findChild(panel, "machine-gpu")
            verify(gpu)
            compare(findChild(gpu, "machineLabel").text, "gpu · alice@gpu.example.com")
            compare(findChild(gpu, "machineState").text, "connected · update pending · 2 turns running · v0.1.0")
            verify(gpu.highlighted)
            const local = findChild(panel, "machine-local")
            compare(findChild(local, "machineState").text, "not connected")
            mouseClick(local)
            compare(fake.calls.length, 1)
            compare(fake.calls[0][0], "select")
            compare(fake.calls[0][1], "local")
        }

        function test_adding_a_machine_selects_it() {
            mouseClick(findChild(panel, "addMachineButton"))
            const dialog = findChild(panel, "addMachineDialog")
            tryVerify(() => dialog.opened)
            findChild(dialog.contentItem, "machineName").text = "box"
            findChild(dialog.contentItem, "machineDestination").text = "bob@10.0.0.7:2222"
            findChild(dialog.contentItem, "machineTransport").currentIndex = 1
            dialog.accept()
            compare(fake.calls[0][0], "add")
            compare(fake.calls[0][1], "box")
            compare(fake.calls[0][2], "bob@10.0.0.7:2222")
            compare(fake.calls[0][4], "openssh")
            compare(fake.calls[1][0], "select")
            compare(fake.calls[1][1], "box")
        }

        function test_a_refused_machine_is_not_selected() {
            const dialog = findChild(panel, "addMachineDialog")
            dialog.submit("bad name", "x", "")
            compare(fake.calls.length, 1)
            compare(fake.calls[0][0], "add")
        }

        function test_an_unknown_host_key_is_accepted_only_by_a_click() {
            const dialog = findChild(panel, "hostKeyDialog")
            verify(!dialog.visible)
            fake.hostKeyPrompt = { machine: "gpu", type: "ssh-ed25519",
                                   fingerprint: "SHA256:3VbQ0vXbyWq3Yh2W3LqY5m5nq6bS1fM2a3KxJxQxQxQ",
                                   message: "not known yet" }
            tryVerify(() => dialog.opened)
            compare(fake.calls.length, 0)
            compare(findChild(dialog.contentItem, "hostKeyFingerprint").text,
                    "ssh-ed25519 SHA256:3VbQ0vXbyWq3Yh2W3LqY5m5nq6bS1fM2a3KxJxQxQxQ")
            const accept = findChild(dialog.footer, "acceptHostKeyButton")
            verify(accept)
            mouseClick(accept)
            compare(fake.calls.length, 1)
            compare(fake.calls[0][0], "accept")
            compare(fake.calls[0][1], "gpu")
            compare(fake.calls[0][2], "SHA256:3VbQ0vXbyWq3Yh2W3LqY5m5nq6bS1fM2a3KxJxQxQxQ")
        }
    
        function test_a_key_passphrase_is_sent_once_and_not_kept() {
            const dialog = findChild(panel, "passphraseDialog")
            fake.passphrasePrompt = { machine: "gpu", key: "/home/alice/.ssh/id_ed25519" }
            tryVerify(() => dialog.opened)
            const field = findChild(dialog.contentItem, "passphraseField")
            compare(field.echoMode, TextInput.Password)
            field.text = "correct horse"
            dialog.accept()
            compare(fake.calls.length, 1)
            compare(fake.calls[0][0], "passphrase")
            compare(fake.calls[0][1], "gpu")
            compare(fake.calls[0][2], "correct horse")
            compare(field.text, "")
        }
    }
}

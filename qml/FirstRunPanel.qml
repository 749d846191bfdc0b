import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// Shown while no provider is configured (workbench.needsSetup): a local
// model server the backend found, with a choice of its models, or a key for
// a cloud provider. Either becomes the default; the workbench then reloads
// the settings and the panel goes away. The same choices as the web UI's
// first-run panel.
Rectangle {
    id: root
    property var workbench
    readonly property var servers: workbench ? workbench.detectedServers : []
    readonly property var localNames: ({ ollama: "Ollama", lmstudio: "LM Studio", llamacpp: "llama.cpp" })
    implicitHeight: content.implicitHeight + 32
    radius: Theme.radius
    color: Theme.surface
    border.color: Theme.border

    ColumnLayout {
        id: content
        anchors.fill: parent
        anchors.margins: 16
        spacing: 10

        Label {
            text: "Set up a model provider"
            font.pixelSize: 17
            font.bold: true
            color: Theme.text
        }
        Label {
            text: "Ava needs a model to talk to. Pick one; you can change it later in Settings."
            color: Theme.muted
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }

        Repeater {
            objectName: "detectedServers"
            model: root.servers
            delegate: ColumnLayout {
                id: server
                required property var modelData
                readonly property string label: root.localNames[modelData.kind] || modelData.name
                readonly property bool hasModels: modelData.models.length > 0
                objectName: "detected-" + modelData.name
                Layout.fillWidth: true
                spacing: 4
                Label {
                    objectName: "serverTitle"
                    text: server.label + (server.hasModels ? " is running" : " is running without a model")
                    font.bold: true
                    color: Theme.text
                }
                Label {
                    objectName: "serverDetail"
                    textFormat: Text.PlainText
                    text: !server.hasModels
                          ? "At " + server.modelData.baseUrl + ". "
                            + (server.modelData.kind === "ollama"
                               ? "Download one in a terminal: ava models pull llama3.2 (or any name from ollama.com/library)"
                               : "Load a model in " + server.label)
                            + "; it shows up here within a few seconds."
                          : "At " + server.modelData.baseUrl + " with " + server.modelData.models.length
                            + (server.modelData.models.length === 1 ? " model." : " models.")
                            + (server.modelData.inUse ? " New conversations already use it until you choose." : "")
                    color: Theme.muted
                    wrapMode: Text.Wrap
                    Layout.fillWidth: true
                }
                RowLayout {
                    visible: server.hasModels
                    ComboBox {
                        id: modelChoice
                        objectName: "modelChoice"
                        model: server.modelData.models
                        Layout.preferredWidth: 240
                        Accessible.name: "Model of " + server.label
                    }
                    Button {
                        objectName: "useDetectedButton"
                        text: "Use " + server.label
                        enabled: !!root.workbench && !root.workbench.setupBusy
                        onClicked: root.workbench.useDetectedServer(server.modelData.name, server.modelData.baseUrl,
                                                                    modelChoice.currentText)
                    }
                }
            }
        }
        Label {
            objectName: "noLocalServer"
            visible: root.servers.length === 0
            text: "No local model server found. Running Ollama (ollama serve, then ava models pull llama3.2), "
                  + "LM Studio or llama.cpp? It shows up here within a few seconds."
            color: Theme.muted
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }

        Rectangle { Layout.fillWidth: true; implicitHeight: 1; color: Theme.border }
        Label { text: "Add an API key"; font.bold: true; color: Theme.text }
        RowLayout {
            Layout.fillWidth: true
            ComboBox {
                id: keyProvider
                objectName: "keyProvider"
                textRole: "label"
                valueRole: "name"
                model: [{ name: "anthropic", label: "Anthropic" }, { name: "openai", label: "OpenAI" }]
                Accessible.name: "Provider"
            }
            TextField {
                id: keyField
                objectName: "keyField"
                echoMode: TextInput.Password
                placeholderText: keyProvider.currentValue === "anthropic" ? "sk-ant-…" : "sk-…"
                Layout.fillWidth: true
                Accessible.name: "API key"
                onAccepted: saveKey.clicked()
            }
            Button {
                id: saveKey
                objectName: "saveKeyButton"
                text: "Save key"
                enabled: !!root.workbench && !root.workbench.setupBusy
                // The field keeps the key until the backend took it: a refused
                // paste can be corrected; on success the panel goes away.
                onClicked: root.workbench.saveProviderKey(keyProvider.currentValue, keyField.text)
            }
        }
        Label {
            objectName: "setupError"
            visible: text !== ""
            text: root.workbench ? root.workbench.setupError : ""
            textFormat: Text.PlainText
            color: Theme.error
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
        Label {
            text: "In a terminal: ava auth login anthropic, or ava doctor to see what is missing."
            color: Theme.muted
            font.pixelSize: 12
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
    }
}

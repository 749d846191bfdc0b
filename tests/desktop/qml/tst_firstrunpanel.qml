import QtQuick
import QtTest
import "../../../qml"

// The first-run panel against a stand-in for the Workbench: a detected
// server is offered with its models and saved with the one chosen; a key is
// sent for the chosen provider and stays in the field when refused.
Item {
    width: 700
    height: 600

    QtObject {
        id: fake
        property var detectedServers: [{ name: "ollama", kind: "ollama", baseUrl: "http://127.0.0.1:11434/v1",
                                         models: ["qwen3:8b", "llama3.2:1b"], inUse: true }]
        property bool setupBusy: false
        property string setupError: ""
        property var used: []
        property var keys: []
        function useDetectedServer(name, baseUrl, model) { used.push([name, baseUrl, model]) }
        function saveProviderKey(provider, key) {
            keys.push([provider, key])
            setupError = "apiKey: no spaces or line breaks"
        }
    }

    FirstRunPanel {
        id: panel
        width: 660
        workbench: fake
    }

    TestCase {
        name: "FirstRunPanel"
        when: windowShown

        function init() {
            fake.detectedServers = [{ name: "ollama", kind: "ollama", baseUrl: "http://127.0.0.1:11434/v1",
                                      models: ["qwen3:8b", "llama3.2:1b"], inUse: true }]
            fake.used = []
            fake.keys = []
            fake.setupError = ""
        }

        function test_offers_the_detected_server_with_the_model_chosen() {
            const server = findChild(panel, "detected-ollama")
            verify(server)
            verify(!findChild(panel, "noLocalServer").visible)
            const choice = findChild(server, "modelChoice")
            compare(choice.count, 2)
            compare(choice.currentText, "qwen3:8b")
            choice.currentIndex = 1
            const use = findChild(server, "useDetectedButton")
            compare(use.text, "Use Ollama")
            mouseClick(use)
            compare(fake.used.length, 1)
            compare(fake.used[0][0], "ollama")
            compare(fake.used[0][1], "http://127.0.0.1:11434/v1")
            compare(fake.used[0][2], "llama3.2:1b")
        }

        function test_a_refused_key_stays_in_the_field_with_the_reason() {
            const provider = findChild(panel, "keyProvider")
            provider.currentIndex = 1
            const field = findChild(panel, "keyField")
            field.text = "sk bad"
            mouseClick(findChild(panel, "saveKeyButton"))
            compare(fake.keys.length, 1)
            compare(fake.keys[0][0], "openai")
            compare(fake.keys[0][1], "sk bad")
            compare(field.text, "sk bad")
            const error = findChild(panel, "setupError")
            tryVerify(() => error.visible)
            compare(error.text, "apiKey: no spaces or line breaks")
        }

        function test_a_server_without_a_model_says_how_to_get_one() {
            fake.detectedServers = [{ name: "ollama", kind: "ollama", baseUrl: "http://127.0.0.1:11434/v1",
                                      models: [], inUse: false }]
            tryVerify(() => findChild(panel, "detected-ollama") !== null)
            const server = findChild(panel, "detected-ollama")
            compare(findChild(server, "serverTitle").text, "Ollama is running without a model")
            verify(findChild(server, "serverDetail").text.indexOf("ava models pull llama3.2") >= 0)
            verify(!findChild(server, "useDetectedButton").visible)
        }

        function test_without_a_local_server_it_says_how_to_start_one() {
            fake.detectedServers = []
            tryVerify(() => findChild(panel, "noLocalServer").visible)
            verify(findChild(panel, "noLocalServer").text.indexOf("ollama serve") >= 0)
        }
    }
}

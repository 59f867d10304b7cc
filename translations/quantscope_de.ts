<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>main</name>
    <message>
        <location filename="../app/gui/main.cpp" line="67"/>
        <source>See and check the memory layouts of quantized LLM weights.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/main.cpp" line="71"/>
        <source>A .gguf or .safetensors file, or a checkpoint folder. Without it the demo checkpoint opens.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/main.cpp" line="73"/>
        <source>Show the view NAME (tensors, metadata).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/main.cpp" line="75"/>
        <source>Select the logical weight NAME.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/main.cpp" line="78"/>
        <source>Render the window at 1600x1000 to FILE (PNG) and exit.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/main.cpp" line="80"/>
        <source>Use the language CODE (de, en, ...) instead of the system&apos;s.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/main.cpp" line="82"/>
        <source>Use the theme NAME (system, light, dark).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/main.cpp" line="88"/>
        <source>quantscope: give at most one path</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/main.cpp" line="106"/>
        <source>quantscope: unknown theme &apos;%1&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/main.cpp" line="120"/>
        <source>quantscope: no view &apos;%1&apos; (views: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/main.cpp" line="123"/>
        <source>quantscope: no weight &apos;%1&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/main.cpp" line="129"/>
        <source>quantscope: cannot write %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>qsw::Inspector</name>
    <message>
        <location filename="../widgets/inspector.cpp" line="55"/>
        <source>No checkpoint is open.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="65"/>
        <source>Path</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="66"/>
        <source>Container</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="66"/>
        <source>%1 version %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="67"/>
        <source>Files</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="68"/>
        <source>Size on disk</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="69"/>
        <location filename="../widgets/inspector.cpp" line="120"/>
        <source>Stored tensors</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="70"/>
        <source>Logical weights</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="80"/>
        <source>Formats</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/inspector.cpp" line="84"/>
        <source>%n weight(s), %1</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="88"/>
        <location filename="../widgets/inspector.cpp" line="135"/>
        <source>Notes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="94"/>
        <source>Select a weight in the tensor browser to see its details.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="102"/>
        <source>Logical shape [out, in]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="104"/>
        <source>Bits</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="106"/>
        <source>Group size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="109"/>
        <source>Zero point</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="109"/>
        <source>symmetric</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="109"/>
        <source>asymmetric</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="110"/>
        <source>Act-order</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="110"/>
        <source>yes (g_idx is not k / group size)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="111"/>
        <source>labelled desc_act, but groups are sequential</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="111"/>
        <source>no</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="113"/>
        <source>Elements</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="114"/>
        <source>Stored bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="114"/>
        <source>%1 (%2 bytes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="115"/>
        <source>Effective bits per weight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="122"/>
        <source>Role</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="122"/>
        <source>Tensor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="122"/>
        <source>Type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="122"/>
        <source>Shape</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="122"/>
        <source>Bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="129"/>
        <source>Evidence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/inspector.cpp" line="137"/>
        <source>Detection found nothing to report.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>qsw::MainWindow</name>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="108"/>
        <source>Quantscope</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="170"/>
        <source>Filter stored tensors</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="172"/>
        <source>Stored tensors</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="182"/>
        <source>Filter metadata</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="184"/>
        <source>Metadata</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="204"/>
        <source>Tensor browser</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="207"/>
        <source>Filter by name or format (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="212"/>
        <source>Inspector</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="221"/>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="222"/>
        <source>Main toolbar</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="226"/>
        <source>&amp;Open File…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="228"/>
        <source>Open &amp;Folder…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="230"/>
        <source>Open &amp;Recent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="231"/>
        <source>Open &amp;Demo Checkpoint</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="232"/>
        <source>Re&amp;load</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="240"/>
        <source>&amp;Close Window</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="242"/>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="249"/>
        <source>&amp;Edit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="250"/>
        <source>&amp;Find Weight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="255"/>
        <source>&amp;Copy Weight Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="260"/>
        <source>&amp;View</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="265"/>
        <source>E&amp;xpand All Layers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="266"/>
        <source>C&amp;ollapse All Layers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="268"/>
        <source>&amp;Theme</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="270"/>
        <source>&amp;System</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="270"/>
        <source>&amp;Light</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="270"/>
        <source>&amp;Dark</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="276"/>
        <source>&amp;Full Screen</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="282"/>
        <source>&amp;Help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="283"/>
        <source>&amp;About Quantscope</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="284"/>
        <source>About &amp;Qt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="325"/>
        <source>Still opening %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="328"/>
        <location filename="../widgets/mainwindow.cpp" line="357"/>
        <source>the demo checkpoint</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="330"/>
        <source>Opening %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="343"/>
        <source>%1: out of memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="345"/>
        <source>%1: internal error: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="383"/>
        <source>Demo checkpoint</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="384"/>
        <source>%1 — Quantscope</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="397"/>
        <source>Cannot open checkpoint</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="398"/>
        <source>Quantscope could not open %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="406"/>
        <source>Kept %1 open.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="414"/>
        <source>No checkpoint open</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="422"/>
        <source>Demo: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/mainwindow.cpp" line="424"/>
        <source>%n tensor(s), </source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/mainwindow.cpp" line="425"/>
        <source>%n weight(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="426"/>
        <source>%1 on disk</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/mainwindow.cpp" line="427"/>
        <source>%1 mapped in %n file(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="466"/>
        <source>&amp;%1 %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="471"/>
        <source>&amp;Clear List</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="611"/>
        <source>Open Checkpoint</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="612"/>
        <source>Checkpoints (*.gguf *.safetensors *.safetensors.index.json);;GGUF (*.gguf);;safetensors (*.safetensors);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="622"/>
        <source>Open Checkpoint Folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="639"/>
        <source>About Quantscope</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="640"/>
        <source>&lt;h3&gt;Quantscope %1&lt;/h3&gt;&lt;p&gt;See and check how quantized LLM weights are laid out in memory: GGUF, GPTQ, AWQ, bitsandbytes, compressed-tensors and MLX.&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>qsw::MetadataModel</name>
    <message>
        <location filename="../widgets/tablemodels.cpp" line="148"/>
        <source>Key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/tablemodels.cpp" line="149"/>
        <source>Type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/tablemodels.cpp" line="150"/>
        <source>Value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/tablemodels.cpp" line="151"/>
        <source>Source</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>qsw::TensorTableModel</name>
    <message>
        <location filename="../widgets/tablemodels.cpp" line="40"/>
        <source>%1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/tablemodels.cpp" line="92"/>
        <source>Tensor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/tablemodels.cpp" line="93"/>
        <source>Type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/tablemodels.cpp" line="94"/>
        <source>Shape</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/tablemodels.cpp" line="95"/>
        <source>File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/tablemodels.cpp" line="96"/>
        <source>Offset</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/tablemodels.cpp" line="97"/>
        <source>Bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/tablemodels.cpp" line="98"/>
        <source>Logical weight (role)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>qsw::WeightTreeModel</name>
    <message numerus="yes">
        <location filename="../widgets/weighttreemodel.cpp" line="160"/>
        <source>%n weight(s) in %1</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/weighttreemodel.cpp" line="227"/>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/weighttreemodel.cpp" line="228"/>
        <source>Format</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/weighttreemodel.cpp" line="229"/>
        <source>Shape [out, in]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/weighttreemodel.cpp" line="230"/>
        <source>Bits</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/weighttreemodel.cpp" line="231"/>
        <source>Group</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/weighttreemodel.cpp" line="232"/>
        <source>Bits/weight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/weighttreemodel.cpp" line="233"/>
        <source>Bytes</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
